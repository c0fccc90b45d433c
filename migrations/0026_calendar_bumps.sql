-- One update of a holiday home's terms row per calendar block or season written, not two (issue 28). A block or a
-- season bumped `calendar_version` (bump_calendar_version, migration 0006) and `rules_version` (bump_rules_version,
-- migration 0018) by two updates of the same row; the second already moves `calendar_version` too, through the
-- terms row's own trigger (terms_calendar: any update that changes the row bumps it). So the first is dropped: every
-- block or season change still moves both versions (calendar_version by one instead of two: versions are compared,
-- never counted), and a job scheduled with a calendar block (a block released, another taken) updates the terms
-- row it holds twice instead of four times. Bookings keep their trigger: they bump rules_version only on homes with
-- turnover days (migration 0025).
drop trigger calendar_blocks_calendar on calendar_blocks;
drop trigger seasons_calendar on holiday_home_seasons;
