/**
 * An IBAN as ISO 13616 writes it: two letters of the country, two check digits, then the account (BBAN, up to 30
 * letters and digits; the UAE's is 19 digits: the 3-digit bank code and the 16-digit account). Spaces are for people
 * and are dropped. No library among the project's dependencies checks IBANs, and the check is ISO 7064's MOD 97-10 alone.
 */
export function normalIban(text: string): string {
  return text.replace(/\s+/g, '').toUpperCase();
}

/** Whether `iban` (normalised) has an IBAN's shape and its check digits agree (MOD 97-10: the remainder is 1). */
export function ibanChecks(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const value = Number.parseInt(char, 36);
    remainder = (value > 9 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}
