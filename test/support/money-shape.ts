import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { ImportGraph } from './imports';
import type { Finding } from './shape';

/**
 * One way to format money (issue 33, "Money"): amounts are rounded and written with their currency's digits by
 * lib/money.ts only. Anywhere else in functions/, lib/ and schema/, these are findings: `.toFixed(…)`, a big.js
 * `.round(…)` (any `.round` but `Math.round`) or rounding mode (`Big.roundHalfUp`…), an `Intl.NumberFormat` option
 * that formats money (`style: 'currency'`, `currency`, `currencyDisplay`, `minimumFractionDigits`,
 * `maximumFractionDigits`), and minor-unit arithmetic (`Math.round(x * 100)`, `… / 100)` inside a `Math` rounding).
 */

/** The home of amount formatting. */
export const moneyFile = 'lib/money.ts';

/**
 * Files that may format what they format, and why: lib/display.ts formats amounts for people with Intl's currency style
 * (the stay page and the browser bundle, examples/website/vendor/display.js, which cannot carry big.js); its digits are
 * Intl's, the source of `minorDigits`, and a test holds the two together (test/platform/money.test.ts).
 */
export const moneyFormattingHomes = [moneyFile, 'lib/display.ts'];

/**
 * Numbers that are not amounts, rounded where they are shown: each file with the exact count of its findings, so a new
 * one is still found. Keep this list short.
 */
export const notAmounts: Record<string, { count: number; why: string }> = {
  'lib/details.ts': { count: 1, why: 'a whole number written as its digits' },
  'functions/catalogue/listings.present.ts': { count: 1, why: 'an approximate location snapped to a grid (degrees)' },
  'functions/portals/feeds.present.ts': { count: 1, why: 'a size in square feet' },
};

const moneyOptions = new Set(['currencyDisplay', 'minimumFractionDigits', 'maximumFractionDigits']);
const roundingModes = new Set(['roundDown', 'roundHalfUp', 'roundHalfEven', 'roundUp']);
const mathRounding = new Set(['round', 'floor', 'ceil', 'trunc']);

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

const propertyName = (p: ts.ObjectLiteralElementLike) =>
  p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;

/** What one file formats or rounds of money, as findings. */
function formattingIn(file: string, text: string): Finding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const add = (node: ts.Node, what: string) => found.push({ file, line: lineOf(sf, node), what: `${what} (use lib/money.ts)` });
  visit(sf, (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const { expression: receiver, name } = node.expression;
      const isMath = ts.isIdentifier(receiver) && receiver.text === 'Math';
      if (name.text === 'toFixed') add(node, '.toFixed()');
      else if (name.text === 'round' && !isMath) add(node, '.round()');
      else if (isMath && mathRounding.has(name.text) && /[*/]\s*100\b/.test(node.arguments.map((a) => a.getText(sf)).join())) {
        add(node, `Math.${name.text}() of hundredths`);
      }
    }
    if (ts.isPropertyAccessExpression(node) && roundingModes.has(node.name.text))
      add(node, `a rounding mode (${node.name.text})`);
    if (ts.isObjectLiteralExpression(node)) {
      for (const p of node.properties) {
        const name = propertyName(p);
        if (name === undefined) continue;
        const value = ts.isPropertyAssignment(p) ? p.initializer : undefined;
        if (name === 'style' && value && ts.isStringLiteralLike(value) && value.text === 'currency') {
          add(p, "Intl's currency style");
        } else if (moneyOptions.has(name)) add(p, `the number format option ${name}`);
      }
    }
  });
  return found;
}

/** Amounts formatted or rounded outside lib/money.ts (and the homes above), less the short list of non-amounts. */
export function amountFormattingElsewhere(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => !moneyFormattingHomes.includes(f))) {
    const inFile = formattingIn(file, readFileSync(join(graph.root, file), 'utf8'));
    const allowed = notAmounts[file];
    if (allowed && inFile.length === allowed.count) continue;
    found.push(...inFile);
  }
  return found;
}
