/**
 * Field names a form may not use: identity documents, card or bank details, passwords, contact details. One
 * vocabulary for lead `details` keys and for the booking form's fields, in the languages of the company's
 * markets (English, Arabic transliterations, French, German).
 *
 * A key is normalised (accents dropped, lower-cased, everything but letters removed) and refused when:
 * - a **stem** occurs anywhere in it, so joined words are caught (`creditcardnumber`, `mypassword`, `emailid`);
 * - a **short word** (too short to search inside longer words: `pin`, `cc`, `tel`, `card`…) is one of its
 *   `_`-separated tokens, or a run of adjacent tokens joined (`pin_2`, `e_mail`, `cc_no`).
 * Known innocent words (`postcard`, `postcode`, `microphone`…) are masked before either search.
 */
export type ForbiddenKind = 'identity' | 'payment' | 'secret' | 'contact';

const words = (text: string) => text.trim().split(/\s+/);

const stems: Record<ForbiddenKind, string[]> = {
  identity: words(`
    passport passeport reisepass jawaz hawiya hawiyya huwiya huwiyya bitaqa betaqa bitaka iqama
    emiratesid nationalid nationalidentity identitycard identitynumber identitydoc idcard idnumber iddocument
    didentite pieceidentite carteidentite ausweis socialsecurity securitesociale nationalinsurance
    residencepermit residencyid residencynumber drivinglicen driverlicen driverslicen fuhrerschein
    fuehrerschein permisdeconduire visanumber`),
  payment: words(`
    creditcard debitcard bankcard visacard mastercard amex americanexpress kreditkarte bankkarte eckarte
    girocard cartebancaire cartedecredit cartecredit cartebleue numerodecarte numerocarte kartennummer
    cardnum cardno cardnr cardpin cardholder cardexpir cardsecurity cardverification securitycode
    cvv ccv cvc iban bankaccount kontonummer routingnumber sortcode raqamhisab raqamalhisab hisabbanki`),
  secret: words(`
    password passwd passwort passcode passphrase kennwort motdepasse geheimzahl kalimatsir kalimatalsir
    kalimatassir kalimatmurur raqamsir raqamalsir raqamassir pinnumber pincode securityanswer credential`),
  contact: words(`
    email courriel phone telephon telefon rufnummer mobilenumber mobileno mobilenr mobilnummer mobilnr
    handynummer handynr cellnumber landline whatsapp telegram wechat skype hatif jawwal jawal
    numeroportable contactnumber`),
};

const shortWords: Record<ForbiddenKind, string[]> = {
  identity: words('idno idnum ssn nino taxid visano cni'),
  payment: words('card cards cc ccnum ccno ccnumber cvn csc'),
  secret: words('pin pwd pw otp secret mdp'),
  contact: words('mail tel telno telnr fax mobile cell handy viber mel contactno'),
};

/**
 * Innocent words the searches above would otherwise hit. Each is masked before matching, so `postcard`,
 * `card_table` or `francophone` pass while `postcard_and_passport` is still refused for its passport.
 */
const allowed = words(`
  postcard postcode cardtable cardgame cardroom keycard accesscard cardaccess mobilehome whatif liban
  francophone anglophone arabophone microphone headphone earphone saxophone xylophone megaphone gramophone
  paidnumber`).sort((a, b) => b.length - a.length);

const entries = (lists: Record<ForbiddenKind, string[]>) =>
  Object.entries(lists).flatMap(([kind, list]) => list.map((w) => [w, kind as ForbiddenKind] as const));
const stemList = entries(stems);
const shortWordMap = new Map(entries(shortWords));

function tokensOf(key: string): string[] {
  return key
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((t) => t.length > 0);
}

function mask(text: string): string {
  let masked = text;
  for (const word of allowed) masked = masked.replaceAll(word, '#'.repeat(word.length));
  return masked;
}

/** The list a field name falls on, if any. */
export function forbiddenKind(key: string): ForbiddenKind | undefined {
  const tokens = tokensOf(key);
  const masked = mask(tokens.join(''));
  for (const [stem, kind] of stemList) if (masked.includes(stem)) return kind;
  // Token runs are read from the masked text, so an allowed word never counts as a short word.
  const starts: number[] = [];
  let at = 0;
  for (const token of tokens) {
    starts.push(at);
    at += token.length;
  }
  for (let first = 0; first < tokens.length; first++) {
    for (let last = first; last < tokens.length; last++) {
      const end = (starts[last] as number) + (tokens[last] as string).length;
      const kind = shortWordMap.get(masked.slice(starts[first], end));
      if (kind) return kind;
    }
  }
  return undefined;
}
