import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SaxonJS from 'saxon-js';
import { memoryPages, validateXML } from 'xmllint-wasm';

/**
 * The PINT AE ground truth the e-invoices are tested against (docs/pint-ae.md): a UAE e-invoice (an Invoice or a
 * CreditNote in UBL 2.1) judged three ways, each answer a list of failed asserts (rule id, flag, text, location).
 *
 * - `validatePintAe`: the official artefacts — the UBL 2.1 schema (OASIS) with a WASM xmllint, then OpenPeppol's
 *   two PINT AE Schematron rule sets (the shared PINT rules and the UAE jurisdiction rules, published as XSLT) run
 *   by SaxonJS in this process. The artefacts are not in this repository (public material the search tool brings in
 *   is not committed here): they are read from `PINT_AE_RESOURCES`, by default `../shared/pint-ae` beside the
 *   checkout, laid out as docs/pint-ae.md says; `pintAeResources()` says what is missing when they are not there.
 *   Each stylesheet is compiled once per call, in memory, and every document of the call goes through it: hand a
 *   call all the documents at once (a compile takes seconds, a document milliseconds).
 * - `checkPintAeRules`: a subset of the same rules written here one by one from the specification's text (the
 *   rules a property manager's invoices meet), which needs nothing outside the repository.
 */

export type FailedAssert = {
  /** The rule's id as the specification names it (`ibr-134-ae`, `ibr-co-15`, …); `xsd` for the schema, `xml` when unreadable. */
  rule: string;
  flag: 'fatal' | 'warning' | 'information' | string;
  text: string;
  /** XPath of the node that failed (Schematron and the checks here), or `line N` (the schema). */
  location: string;
  source: 'xml' | 'xsd' | 'schematron' | 'spec';
};

export type PintAeDocument = { name: string; xml: string };
export type PintAeReport = { name: string; failed: FailedAssert[] };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the official artefacts are read from. */
export const pintAeResourcesDir = resolve(root, process.env.PINT_AE_RESOURCES ?? '../shared/pint-ae');

/** The files read from `pintAeResourcesDir`, relative to it. */
export const pintAeLayout = {
  xsdCommon: 'ubl-2.1/xsd/common',
  xsd: { Invoice: 'ubl-2.1/xsd/maindoc/UBL-Invoice-2.1.xsd', CreditNote: 'ubl-2.1/xsd/maindoc/UBL-CreditNote-2.1.xsd' },
  /** The official PINT AE resource packages, unpacked as published (billing, self-billing). */
  sets: { billing: 'billing', selfbilling: 'selfbilling' },
  transactions: { Invoice: 'trn-invoice', CreditNote: 'trn-creditnote' },
  ruleFiles: ['PINT-UBL-validation-preprocessed.xslt', 'PINT-jurisdiction-aligned-rules.xslt'],
} as const;

type RuleSet = keyof typeof pintAeLayout.sets;
type Root = keyof typeof pintAeLayout.xsd;

export type PintAeResources = { dir: string; missing: string[] };

/** The official artefacts, or which of them are missing. */
export function pintAeResources(dir = pintAeResourcesDir): PintAeResources {
  const wanted: string[] = [pintAeLayout.xsdCommon, ...Object.values(pintAeLayout.xsd)];
  for (const set of Object.values(pintAeLayout.sets)) {
    for (const trn of Object.values(pintAeLayout.transactions)) {
      for (const file of pintAeLayout.ruleFiles) wanted.push(`${set}/${trn}/schematron/${file}`);
    }
  }
  return { dir, missing: wanted.filter((path) => !existsSync(join(dir, path))) };
}

/** The official example instances of the resource packages (`billing/trn-invoice/example/…`). */
export function pintAeExamples(dir = pintAeResourcesDir): PintAeDocument[] {
  const examples: PintAeDocument[] = [];
  for (const set of Object.values(pintAeLayout.sets)) {
    for (const trn of Object.values(pintAeLayout.transactions)) {
      const folder = join(dir, set, trn, 'example');
      if (!existsSync(folder)) continue;
      for (const file of readdirSync(folder)
        .filter((f) => f.endsWith('.xml'))
        .sort()) {
        examples.push({ name: `${set}/${trn}/example/${file}`, xml: readFileSync(join(folder, file), 'utf8') });
      }
    }
  }
  return examples;
}

type Kind = { root: Root; set: RuleSet };

/** Invoice or CreditNote, and billing or self-billing (by the specification identifier, ibt-024). */
function kindOf(xml: string): Kind | string {
  try {
    const [local, ns, customization] = SaxonJS.XPath.evaluate(
      'let $d := parse-xml($xml) return (local-name($d/*), namespace-uri($d/*), string($d/*/*:CustomizationID))',
      null,
      { params: { xml }, resultForm: 'array' },
    ) as string[];
    if ((local !== 'Invoice' && local !== 'CreditNote') || ns !== `urn:oasis:names:specification:ubl:schema:xsd:${local}-2`) {
      return `the root element is ${local} in ${ns}, not a UBL 2.1 Invoice or CreditNote`;
    }
    return { root: local, set: (customization ?? '').includes('selfbilling') ? 'selfbilling' : 'billing' };
  } catch (error) {
    return `not well-formed XML: ${(error as Error).message}`;
  }
}

/** Every document against the UBL 2.1 schema and the official PINT AE Schematron rules. */
export async function validatePintAe(documents: PintAeDocument[], dir = pintAeResourcesDir): Promise<PintAeReport[]> {
  const { missing } = pintAeResources(dir);
  if (missing.length > 0) throw new Error(`PINT AE artefacts missing under ${dir}: ${missing.join(', ')}`);
  const reports: PintAeReport[] = documents.map(({ name }) => ({ name, failed: [] }));
  const kinds = documents.map(({ xml }) => kindOf(xml));
  const readable: number[] = [];
  kinds.forEach((kind, i) => {
    if (typeof kind === 'string') {
      reports[i]?.failed.push({ rule: 'xml', flag: 'fatal', text: kind, location: '/', source: 'xml' });
    } else readable.push(i);
  });

  // The schema: one xmllint run per root element, every document of that root in it.
  const preload = readdirSync(join(dir, pintAeLayout.xsdCommon)).map((file) => ({
    fileName: `common/${file}`,
    contents: readFileSync(join(dir, pintAeLayout.xsdCommon, file)),
  }));
  for (const rootName of Object.keys(pintAeLayout.xsd) as Root[]) {
    const indices = readable.filter((i) => (kinds[i] as Kind).root === rootName);
    if (indices.length === 0) continue;
    const schemaPath = pintAeLayout.xsd[rootName];
    const result = await validateXML({
      xml: indices.map((i) => ({ fileName: `document-${i}.xml`, contents: documents[i]?.xml ?? '' })),
      schema: [{ fileName: `maindoc/${schemaPath.split('/').pop()}`, contents: readFileSync(join(dir, schemaPath)) }],
      preload,
      maxMemoryPages: memoryPages.GiB,
    });
    for (const error of result.errors) {
      // xmllint closes each document with "document-N.xml fails to validate": the errors before it say why.
      if (/^document-\d+\.xml fails to validate$/.test(error.rawMessage.trim())) continue;
      const index = Number(/^document-(\d+)\.xml/.exec(error.loc?.fileName ?? error.rawMessage)?.[1] ?? Number.NaN);
      for (const i of Number.isNaN(index) ? indices : [index]) {
        reports[i]?.failed.push({
          rule: 'xsd',
          flag: 'fatal',
          text: error.message,
          location: error.loc ? `line ${error.loc.lineNumber}` : '',
          source: 'xsd',
        });
      }
    }
  }

  // The Schematron rules: each distinct stylesheet compiled once, every document that it applies to run through it.
  const byStylesheet = new Map<string, { path: string; indices: number[] }>();
  for (const i of readable) {
    const kind = kinds[i] as Kind;
    for (const file of pintAeLayout.ruleFiles) {
      const path = join(dir, pintAeLayout.sets[kind.set], pintAeLayout.transactions[kind.root], 'schematron', file);
      const key = createHash('sha256').update(readFileSync(path)).digest('hex');
      const entry = byStylesheet.get(key) ?? { path, indices: [] };
      entry.indices.push(i);
      byStylesheet.set(key, entry);
    }
  }
  for (const { path, indices } of byStylesheet.values()) {
    const results = runSchematron(
      path,
      indices.map((i) => documents[i]?.xml ?? ''),
    );
    results.forEach((failed, k) => {
      const i = indices[k];
      if (i !== undefined) reports[i]?.failed.push(...failed);
    });
  }
  return reports;
}

const svrl = 'http://purl.oclc.org/dsdl/svrl';

/**
 * A stylesheet of ours that imports the official one and applies it to each document given as text: one compile,
 * then each document's SVRL report reduced to its failed asserts and successful reports.
 */
function runSchematron(stylesheetPath: string, texts: string[]): FailedAssert[][] {
  const official = pathToFileURL(stylesheetPath).href;
  const wrapper = `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
      xmlns:xs="http://www.w3.org/2001/XMLSchema">
    <xsl:import href="${official}"/>
    <xsl:param name="texts" as="xs:string*"/>
    <xsl:template name="xsl:initial-template">
      <xsl:for-each select="$texts">
        <xsl:document><xsl:apply-templates select="parse-xml(.)"/></xsl:document>
      </xsl:for-each>
    </xsl:template>
  </xsl:stylesheet>`;
  const results = SaxonJS.XPath.evaluate(
    `let $reports := transform(map {
       'stylesheet-text': $wrapper,
       'stylesheet-base-uri': $base,
       'initial-template': QName('http://www.w3.org/1999/XSL/Transform', 'initial-template'),
       'stylesheet-params': map { QName('', 'texts'): $texts },
       'delivery-format': 'raw'
     })?output
     return array {
       for $report in $reports return array {
         for $f in $report//(Q{${svrl}}failed-assert | Q{${svrl}}successful-report)
         return map {
           'rule': string($f/@id),
           'flag': string(($f/@flag, 'fatal')[1]),
           'text': normalize-space(string($f/Q{${svrl}}text)),
           'location': string($f/@location)
         }
       }
     }`,
    null,
    // The wrapper's own address sits beside the official file (never the file itself: that would import itself).
    { params: { wrapper, base: `${official}.harness.xsl`, texts: texts } },
  ) as Array<Array<Omit<FailedAssert, 'source'>>>;
  return results.map((failed) => failed.map((f) => ({ ...f, source: 'schematron' as const })));
}

/** Only the failed asserts flagged fatal (what makes a document refused). */
export function fatal(failed: FailedAssert[]): FailedAssert[] {
  return failed.filter((f) => f.flag === 'fatal');
}

// ---------------------------------------------------------------------------------------------------------------
// Rules written from the specification's text (docs/pint-ae.md lists each with its source). Each is a context (the
// nodes the rule speaks of) and a condition each of them must meet, in XPath 3.1 over the UBL document; the prefixes
// are UBL's (cbc, cac) and `doc` for the root, whichever of Invoice and CreditNote it is.
// ---------------------------------------------------------------------------------------------------------------

type SpecRule = { rule: string; text: string; context: string; test: string };

const typeCode = '(cbc:InvoiceTypeCode, cbc:CreditNoteTypeCode)[1]';
const txnFlag = (position: number) => `substring(normalize-space(cbc:ProfileExecutionID), ${position}, 1) = '1'`;
const principal = 'cac:SellerSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID';
const sellerTrn = `cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme[normalize-space(cac:TaxScheme/cbc:ID) = 'VAT']/cbc:CompanyID`;
const twoDecimals = (amount: string) =>
  `every $a in ${amount} satisfies not(contains(string($a), '.')) or string-length(substring-after(string($a), '.')) le 2`;
/** An amount rounded to 2 decimals, a half upwards (XPath's round(), as the published rules round). */
const round2 = (expression: string) => `round((${expression}) * 100) div 100`;

export const pintAeSpecRules: SpecRule[] = [
  {
    rule: 'aligned-ibrp-001-ae',
    text: 'The specification identifier (IBT-024) starts with urn:peppol:pint:billing-1@ae-1 or urn:peppol:pint:selfbilling-1@ae-1.',
    context: '/doc',
    test: `some $p in ('urn:peppol:pint:billing-1@ae-1', 'urn:peppol:pint:selfbilling-1@ae-1') satisfies starts-with(normalize-space(cbc:CustomizationID), $p)`,
  },
  {
    rule: 'aligned-ibrp-002-ae',
    text: 'The business process (IBT-023) is urn:peppol:bis:billing or urn:peppol:bis:selfbilling.',
    context: '/doc',
    test: `some $p in ('urn:peppol:bis:billing', 'urn:peppol:bis:selfbilling') satisfies starts-with(normalize-space(cbc:ProfileID), $p)`,
  },
  {
    rule: 'ibr-cl-01',
    text: 'The document type code (IBT-003) is one PINT AE allows: invoices 380 or 480 (self-billing 389 or 480), credit notes 381 or 81 (self-billing 261 or 81).',
    context: '/doc',
    test: `let $self := contains(cbc:CustomizationID, 'selfbilling'), $code := normalize-space(${typeCode})
           return if (cbc:InvoiceTypeCode) then $code = (if ($self) then ('389', '480') else ('380', '480'))
                  else $code = (if ($self) then ('261', '81') else ('381', '81'))`,
  },
  {
    rule: 'ibr-154-ae',
    text: 'The invoice transaction type code (BTAE-02, cbc:ProfileExecutionID) is 8 characters, each 0 or 1.',
    context: '/doc',
    test: `matches(string(cbc:ProfileExecutionID), '^[01]{8}$')`,
  },
  {
    rule: 'ibr-193-ae',
    text: 'The unique identifier number (BTAE-07, cbc:UUID) is given.',
    context: '/doc',
    test: 'exists(cbc:UUID)',
  },
  {
    rule: 'ibr-134-ae',
    text: "The seller's VAT identifier (IBT-031, the TRN) is given, unless the document is out of scope of VAT (480) or a credit note related to goods or services (81).",
    context: '/doc',
    test: `normalize-space(${typeCode}) = ('480', '81') or exists(${sellerTrn}[normalize-space() != ''])`,
  },
  {
    rule: 'ibr-132-ae',
    text: 'A VAT identifier of a party in the UAE is a TRN: 15 digits, the first 1, the last two 03.',
    context: `//cac:Party[cac:PostalAddress/cac:Country/cbc:IdentificationCode = 'AE']/cac:PartyTaxScheme[normalize-space(upper-case(cac:TaxScheme/cbc:ID)) = 'VAT']/cbc:CompanyID`,
    test: `matches(string(.), '^1[0-9]{12}03$')`,
  },
  {
    rule: 'ibr-137-ae',
    text: 'A disclosed-agent billing document (BTAE-02 position 6 is 1) names the principal (BTAE-14, cac:SellerSupplierParty).',
    context: '/doc',
    test: `not(${txnFlag(6)}) or exists(${principal}[normalize-space() != ''])`,
  },
  {
    rule: 'ibr-176-ae',
    text: "In disclosed-agent billing the principal's identifier (BTAE-14) is not the seller's (the agent's) VAT identifier (IBT-031).",
    context: '/doc',
    test: `not(${txnFlag(6)}) or (let $trn := ${sellerTrn}/normalize-space() return empty(${principal}[normalize-space() = $trn]))`,
  },
  {
    rule: 'ibr-158-ae',
    text: 'A credit note (381) gives its reason code (BTAE-03, cac:DiscrepancyResponse/cbc:ResponseCode).',
    context: '/doc',
    test: `normalize-space(${typeCode}) != '381' or exists(cac:DiscrepancyResponse/cbc:ResponseCode[normalize-space() != ''])`,
  },
  {
    rule: 'ibr-001-ae',
    text: 'The credit note reason code (BTAE-03) is from the list of reasons for credit notes (DL8.61.1.A to E, VD).',
    context: '//cac:DiscrepancyResponse/cbc:ResponseCode',
    test: `normalize-space(.) = ('DL8.61.1.A', 'DL8.61.1.B', 'DL8.61.1.C', 'DL8.61.1.D', 'DL8.61.1.E', 'VD')`,
  },
  {
    rule: 'ibr-055-ae',
    text: 'A credit note (381 or 81) references the invoice it credits (IBG-03), except a volume discount (reason VD), which references none.',
    context: '/doc',
    test: `not(normalize-space(${typeCode}) = ('381', '81')) or
           (if (cac:DiscrepancyResponse/cbc:ResponseCode/normalize-space() = 'VD') then empty(cac:BillingReference)
            else exists(cac:BillingReference))`,
  },
  {
    rule: 'ibr-139-ae',
    text: 'Every tax category code (IBT-095, IBT-102, IBT-118, IBT-151) is one of S, E, O, AE, Z and N.',
    context: '//(cac:TaxCategory | cac:ClassifiedTaxCategory)/cbc:ID',
    test: `normalize-space(.) = ('S', 'E', 'O', 'AE', 'Z', 'N')`,
  },
  {
    rule: 'ibr-167-ae',
    text: 'An exempt line (category E) gives its VAT exemption reason code (IBT-186).',
    context: '//(cac:InvoiceLine | cac:CreditNoteLine)',
    test: `not(cac:Item/cac:ClassifiedTaxCategory/normalize-space(cbc:ID) = 'E') or exists(cac:Item/cac:ClassifiedTaxCategory/cbc:TaxExemptionReasonCode)`,
  },
  {
    rule: 'ibr-151-ae',
    text: 'A tax invoice (380) or tax credit note (381) has at least one line that is neither exempt (E) nor out of scope (O).',
    context: '/doc',
    test: `not(normalize-space(${typeCode}) = ('380', '381')) or
           exists((cac:InvoiceLine | cac:CreditNoteLine)/cac:Item/cac:ClassifiedTaxCategory[not(normalize-space(cbc:ID) = ('E', 'O'))])`,
  },
  {
    rule: 'ibr-122-ae',
    text: 'An invoice out of scope of tax (480) or a credit note related to goods or services (81) uses only the tax categories E and O.',
    context: '/doc',
    test: `not(normalize-space(${typeCode}) = ('480', '81')) or
           (every $c in .//(cac:TaxCategory | cac:ClassifiedTaxCategory)/cbc:ID satisfies normalize-space($c) = ('E', 'O'))`,
  },
  {
    rule: 'ibr-124-ae',
    text: 'A credit note (381 or 81) gives no VAT point date (IBT-007).',
    context: '/doc',
    test: `not(normalize-space(${typeCode}) = ('381', '81')) or empty(cbc:TaxPointDate)`,
  },
  {
    rule: 'ibr-127-ae',
    text: 'A document with an amount due above zero gives its payment due date (IBT-009), except credit notes and deemed supplies (BTAE-02 position 2).',
    context: '/doc',
    test: `normalize-space(${typeCode}) = ('381', '81', '261') or ${txnFlag(2)} or
           not(xs:decimal(cac:LegalMonetaryTotal/cbc:PayableAmount) gt 0) or exists(cbc:DueDate)`,
  },
  {
    rule: 'aligned-ibrp-s-05',
    text: 'A standard-rated line (S) has a VAT rate (IBT-152) above zero.',
    context: `//(cac:InvoiceLine | cac:CreditNoteLine)/cac:Item/cac:ClassifiedTaxCategory[normalize-space(cbc:ID) = 'S']`,
    test: `cbc:Percent castable as xs:decimal and xs:decimal(cbc:Percent) gt 0`,
  },
  {
    rule: 'ibr-104-ae',
    text: 'A line that is not exempt gives its amount in AED (BTAE-10) and its VAT in AED (BTAE-08, cac:ItemPriceExtension/cac:TaxTotal/cbc:TaxAmount).',
    context: `//(cac:InvoiceLine | cac:CreditNoteLine)[cac:Item/cac:ClassifiedTaxCategory[normalize-space(cbc:ID) != 'E']]`,
    test: 'exists(cac:ItemPriceExtension/cbc:Amount) and exists(cac:ItemPriceExtension/cac:TaxTotal/cbc:TaxAmount)',
  },
  {
    rule: 'ibr-194-ae',
    text: 'Every line gives its amount payable in AED (BTAE-10, cac:ItemPriceExtension/cbc:Amount).',
    context: '//(cac:InvoiceLine | cac:CreditNoteLine)',
    test: 'exists(cac:ItemPriceExtension/cbc:Amount)',
  },
  {
    rule: 'ibr-co-10',
    text: 'The sum of line net amounts (IBT-106) equals the lines’ net amounts (IBT-131) added up, rounded to 2 decimals.',
    context: '/doc/cac:LegalMonetaryTotal',
    test: `xs:decimal(cbc:LineExtensionAmount) = ${round2('sum(../(cac:InvoiceLine | cac:CreditNoteLine)/xs:decimal(cbc:LineExtensionAmount))')}`,
  },
  {
    rule: 'ibr-co-13',
    text: 'The total without tax (IBT-109) equals the sum of line net amounts less document allowances plus document charges.',
    context: '/doc/cac:LegalMonetaryTotal',
    test: `../cac:TaxTotal/cbc:TaxIncludedIndicator = true() or xs:decimal(cbc:TaxExclusiveAmount) =
           ${round2('xs:decimal(cbc:LineExtensionAmount) - sum(cbc:AllowanceTotalAmount/xs:decimal(.)) + sum(cbc:ChargeTotalAmount/xs:decimal(.))')}`,
  },
  {
    rule: 'ibr-co-14',
    text: 'The invoice total VAT (IBT-110) equals the VAT of its breakdowns (IBT-117) added up.',
    context: '/doc/cac:TaxTotal[cac:TaxSubtotal]',
    test: `xs:decimal(cbc:TaxAmount) = ${round2('sum(cac:TaxSubtotal/xs:decimal(cbc:TaxAmount))')}`,
  },
  {
    rule: 'ibr-co-15',
    text: 'The total with tax (IBT-112) equals the total without tax (IBT-109) plus the total VAT (IBT-110).',
    context: '/doc',
    test: `cac:TaxTotal/cbc:TaxIncludedIndicator = true() or xs:decimal(cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount) =
           ${round2(`xs:decimal(cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount) + sum(cac:TaxTotal[1]/cbc:TaxAmount[@currencyID = /*/cbc:DocumentCurrencyCode]/xs:decimal(.))`)}`,
  },
  {
    rule: 'ibr-co-16',
    text: 'The amount due (IBT-115) equals the total with tax less the amount paid plus the rounding amount.',
    context: '/doc/cac:LegalMonetaryTotal',
    test: `xs:decimal(cbc:PayableAmount) =
           ${round2('xs:decimal(cbc:TaxInclusiveAmount) - sum(cbc:PrepaidAmount/xs:decimal(.)) + sum(cbc:PayableRoundingAmount/xs:decimal(.))')}`,
  },
  {
    rule: 'ibr-091',
    text: 'Totals (IBT-109, IBT-110, IBT-112, IBT-115) have no more than 2 decimals.',
    context: '/doc',
    test: twoDecimals(
      '(cac:LegalMonetaryTotal/(cbc:TaxExclusiveAmount | cbc:TaxInclusiveAmount | cbc:PayableAmount), cac:TaxTotal/cbc:TaxAmount)',
    ),
  },
  {
    rule: 'aligned-ibrp-s-09',
    text: 'The VAT of a standard-rated breakdown (IBT-117) is its taxable amount (IBT-116) times its rate (IBT-119), rounded to 2 decimals (within 0.02).',
    context: `/doc/cac:TaxTotal/cac:TaxSubtotal[normalize-space(cac:TaxCategory/cbc:ID) = 'S']`,
    test: `abs(abs(xs:decimal(cbc:TaxAmount)) - ${round2('abs(xs:decimal(cbc:TaxableAmount)) * xs:decimal(cac:TaxCategory/cbc:Percent) div 100')}) le 0.02`,
  },
  {
    rule: 'aligned-ibrp-e-09',
    text: 'An exempt breakdown (E) carries no VAT (IBT-117 is 0).',
    context: `/doc/cac:TaxTotal/cac:TaxSubtotal[normalize-space(cac:TaxCategory/cbc:ID) = 'E']`,
    test: 'xs:decimal(cbc:TaxAmount) = 0',
  },
];

const namespaces = {
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  xs: 'http://www.w3.org/2001/XMLSchema',
};

/** The rules above on one document: the ones it fails, each with the path of the node that failed. */
export function checkPintAeRules(xml: string, rules: SpecRule[] = pintAeSpecRules): FailedAssert[] {
  const kind = kindOf(xml);
  if (typeof kind === 'string') return [{ rule: 'xml', flag: 'fatal', text: kind, location: '/', source: 'xml' }];
  const failed: FailedAssert[] = [];
  const document = SaxonJS.XPath.evaluate('parse-xml($xml)', null, { params: { xml } });
  for (const rule of rules) {
    // `/doc` is the root element, whichever it is; the rest of the context is evaluated from the document node.
    const context = rule.context.replace(/^\/doc/, '$d/*').replace(/^\/\//, '$d//');
    // Each context node on its own: a value the rule cannot read (an amount that is not a number) fails that node.
    const contexts = SaxonJS.XPath.evaluate(`for $c in ${context} return path($c)`, null, {
      params: { d: document },
      namespaceContext: namespaces,
      resultForm: 'array',
    }) as string[];
    contexts.forEach((location, i) => {
      let met: unknown;
      let unreadable = '';
      try {
        met = SaxonJS.XPath.evaluate(`(${context})[${i + 1}] ! boolean(${rule.test})`, null, {
          params: { d: document },
          namespaceContext: namespaces,
        });
      } catch (error) {
        unreadable = ` (unreadable here: ${(error as Error).message})`;
      }
      if (met !== true) failed.push({ rule: rule.rule, flag: 'fatal', text: rule.text + unreadable, location, source: 'spec' });
    });
  }
  return failed;
}
