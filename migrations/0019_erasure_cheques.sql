-- Erasure reaches a bounced payment's cheque (issue 21; docs/api-reference.md, "Erasure").
--
-- A bounced payment never changes (0011's rent_payment_settled), with one exception (0012): erasing a person empties
-- the free texts of their leases' payments. A post-dated cheque's number and bank identify the drawer's bank account,
-- so erasure now empties them too. Only `notes`, `cheque_number` and `cheque_bank` may become null, all three in one
-- update; every other column, the amounts and days an owner's statement showed included, stays as it was.

create or replace function rent_payment_settled() returns trigger language plpgsql as $$
declare
  erased rent_payments;
begin
  if OLD.status = 'bounced' then
    erased := OLD;
    erased.notes := null;
    erased.cheque_number := null;
    erased.cheque_bank := null;
    -- Set by the touch and version triggers, which run after this one.
    erased.updated_at := NEW.updated_at;
    erased.version := NEW.version;
    if (OLD.notes is not null or OLD.cheque_number is not null) and NEW is not distinct from erased then
      return NEW;
    end if;
    raise exception 'rent payment % bounced and never changes', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_bounced_final';
  end if;
  if NEW.status is distinct from OLD.status and not (
    (OLD.status = 'due' and NEW.status in ('received', 'bounced', 'cancelled'))
    or (OLD.status = 'received' and NEW.status = 'bounced')
  ) then
    raise exception 'rent payment % cannot go from % to %', OLD.id, OLD.status, NEW.status
      using errcode = 'check_violation', constraint = 'rent_payments_status_forward';
  end if;
  if OLD.booked_on is not null and NEW.booked_on is distinct from OLD.booked_on then
    raise exception 'rent payment % was booked on % and that never changes', OLD.id, OLD.booked_on
      using errcode = 'check_violation', constraint = 'rent_payments_booked_on_fixed';
  end if;
  if OLD.fee_amount is not null and NEW.fee_amount is distinct from OLD.fee_amount then
    raise exception 'rent payment % has its fee and that never changes', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_fee_amount_fixed';
  end if;
  -- A received payment's own fields are what the owner was shown: only its bounce may follow.
  if OLD.status = 'received' and (NEW.amount, NEW.due_on, NEW.lease_id, NEW.company_id)
      is distinct from (OLD.amount, OLD.due_on, OLD.lease_id, OLD.company_id) then
    raise exception 'rent payment % was received: its amount, due date and lease never change', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_received_fixed';
  end if;
  return NEW;
end;
$$;
