import Big from 'big.js';
import { fixedTo, formatAmount, xpathHundredths } from '../money';

/**
 * The price of a line (IBT-146, per IBT-149 base quantity) that PINT AE's ibr-147-ae accepts. The rule asks that
 * round(net × 100) = round(quantity × (price ÷ base quantity) × 100), and the published Schematron computes both sides
 * in floating point (an element's text is a double in XPath arithmetic): in a currency of 3 digits a net on a tie
 * (0.225) can round up on one side and down on the other, so not every exact statement of the price passes. The
 * first of these that passes is taken: the unit price when the net divides by the quantity within the currency's
 * digits (3 nights at 500.00); the net per the whole quantity; the same scaled by 2 to 99 (exact statements all);
 * then the unit price to 4 to 12 decimals, or one in the last of them either way (true to the rule's 2 decimals).
 * null when none passes (not seen over ten million nets and quantities: docs/pint-ae.md).
 */
export function priceOf(net: string, quantity: string, currency: string): { price: string; base: string } | null {
  const q = new Big(quantity);
  const target = xpathHundredths(Number(net));
  const passes = (price: string, base: string) => xpathHundredths(Number(quantity) * (Number(price) / Number(base))) === target;
  for (const [price, base] of candidates(new Big(net), q, currency)) {
    if (new Big(price).gte(0) && passes(price, base)) return { price, base };
  }
  return null;
}

function* candidates(net: Big, quantity: Big, currency: string): Generator<[string, string]> {
  const unit = net.div(quantity);
  if (unit.times(quantity).eq(net) && unit.eq(formatAmount(unit, currency))) yield [formatAmount(unit, currency), '1'];
  for (let m = 1; m < 100; m += 1) yield [formatAmount(net.times(m), currency), quantity.times(m).toString()];
  for (let digits = 4; digits <= 12; digits += 1) {
    const rounded = new Big(fixedTo(unit, digits));
    const step = new Big(10).pow(-digits);
    for (const price of [rounded, rounded.plus(step), rounded.minus(step)]) yield [fixedTo(price, digits), '1'];
  }
}
