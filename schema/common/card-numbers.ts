/** Luhn's check on 13 to 19 digits: what a payment card number passes. */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Candidate card numbers in a text: 13 to 19 digits, spaces or dashes between.
const cardCandidates = /(?<!\d)\d(?:[ -]?\d){12,18}(?![ -]?\d)/g;

/** Whether a text carries a payment card number (13 to 19 digits passing Luhn's check, grouped or not). */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(cardCandidates)) if (isCardNumber(match[0].replace(/\D/g, ''))) return true;
  return false;
}

/** What a card number is replaced with where a text is kept ({@link redactCardNumbers}). */
export const redactedCard = '[card number removed]';

/**
 * A text with every payment card number in it (13 to 19 digits passing Luhn's check, grouped or not) replaced by
 * {@link redactedCard}, and how many were: for texts that are kept whatever they hold (an inbound WhatsApp message
 * cannot be refused), so no card number is ever stored in the clear. Other digits stay as they were.
 */
export function redactCardNumbers(text: string): { text: string; redacted: number } {
  let redacted = 0;
  const kept = text.replace(cardCandidates, (match) => {
    if (!isCardNumber(match.replace(/\D/g, ''))) return match;
    redacted++;
    return redactedCard;
  });
  return { text: kept, redacted };
}
