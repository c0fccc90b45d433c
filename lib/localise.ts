import type { LocalisedText } from '../schema/common/columns';

export const languages = ['en', 'ar'] as const;
export type Language = (typeof languages)[number];

/** Both languages always present; a language without text gives the English text. */
export function localised(text: LocalisedText | null | undefined): { en: string; ar: string } {
  const en = text?.en ?? '';
  return { en, ar: text?.ar || en };
}
