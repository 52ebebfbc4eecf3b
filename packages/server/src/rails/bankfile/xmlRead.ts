import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Reading the ISO 20022 files the bank puts in the inbox: pain.002 here, camt.054 as a stream (camt054.ts) with the
 * same checks and these limits. A file from outside is read with every value kept as text (amounts become bigint
 * paise here, never a JavaScript number), attributes kept (Ccy), no entity expanded: a DOCTYPE or ENTITY
 * declaration is refused before the parser sees the file, so that no entity can be defined, let alone expanded. The
 * size and the nesting depth are capped.
 */

/**
 * The largest file the inbox takes: 256 MiB. A camt.054 is read as it streams (camt054.ts), holding its transactions
 * (about 250 bytes each) and never its bytes: through the inbox, a 60 MiB notification of 126,000 entries raised the
 * server's RSS by 39 MB and one of 250 MiB (510,000 entries) by 105 MB, to a peak of 251 MB on PostgreSQL
 * (docs/internals/performance.md). Four times the largest day reported (60 MB) fits the server's 300 MB; a larger
 * file is refused unread.
 */
export const MAX_BANK_FILE_BYTES = 256 * 1024 * 1024;
/**
 * The largest file read whole, into one document tree, which takes about twenty times the file: the status reports
 * (pain.002: one entry per payout of a cut file, at most 10,000: a few megabytes), the statements (which have their
 * own, lower, MAX_STATEMENT_BYTES) and readCamt054 of bytes already in memory.
 */
export const MAX_WHOLE_BANK_FILE_BYTES = 64 * 1024 * 1024;
/** Deeper than any pain.002 or camt.054 (about 15 levels). */
export const MAX_BANK_XML_DEPTH = 40;

/** A bank file Payrail cannot read: not XML, an unknown message, or a schema violation. Nothing is applied. */
export class BankFileUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BankFileUnreadable';
  }
}

/** The message families read from the inbox, with the versions accepted. */
export interface IsoMessage {
  /** e.g. `pain.002`, `camt.054`, `camt.053`. */
  type: string;
  /** e.g. `pain.002.001.11`. */
  name: string;
  /** The document's root children, parsed (element name → value). */
  document: XmlNode;
}

export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

const NAMESPACE =
  /xmlns(?::[A-Za-z_][\w.-]*)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})["']/;

/** The elements read as repeating: always arrays, whether the file has one or many. */
const REPEATING = new Set([
  'OrgnlPmtInfAndSts',
  'TxInfAndSts',
  'StsRsnInf',
  'AddtlInf',
  'Ntfctn',
  'Ntry',
  'NtryDtls',
  'TxDtls',
  'Stmt',
  'PmtInf',
  'CdtTrfTxInf',
]);

/**
 * How every bank file is parsed: values stay text (amounts become bigint in our code), attributes kept (Ccy), no
 * entity expanded, namespace prefixes dropped, nesting limited. The camt.053 reader adds its own array handling.
 */
export const BANK_XML_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  removeNSPrefix: true,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_BANK_XML_DEPTH,
} as const;

const parser = new XMLParser({ ...BANK_XML_OPTIONS, isArray: (name) => REPEATING.has(name) });

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The predefined entities and character references, and nothing else (there is no DTD, so no other entity). */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9A-Fa-f]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/g, (whole, name: string) => {
    if (name[0] !== '#') return PREDEFINED[name] as string;
    const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The nesting depth, counted on the raw text, before any parser runs (a cheap linear pass). */
function tooDeep(xml: string, max: number): boolean {
  let depth = 0;
  for (let i = xml.indexOf('<'); i !== -1; i = xml.indexOf('<', i + 1)) {
    const next = xml.charCodeAt(i + 1);
    if (next === 47 /* / */) depth--;
    else if (next !== 33 /* ! */ && next !== 63 /* ? */) {
      const end = xml.indexOf('>', i);
      if (end === -1) return false;
      if (xml.charCodeAt(end - 1) !== 47) depth++;
      if (depth > max) return true;
    }
  }
  return false;
}

/**
 * Reads an inbox file as one of `accepted` (full message names such as `pain.002.001.11`). The namespace decides
 * the message. Throws BankFileUnreadable with the reason the operator will see.
 */
export function readIsoMessage(bytes: Buffer, accepted: readonly string[]): IsoMessage {
  if (bytes.length === 0) throw new BankFileUnreadable('the file is empty');
  if (bytes.length > MAX_WHOLE_BANK_FILE_BYTES) {
    throw new BankFileUnreadable(`the file is larger than ${MAX_WHOLE_BANK_FILE_BYTES} bytes`);
  }
  const xml = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (!xml.trimStart().startsWith('<')) throw new BankFileUnreadable('not XML');
  // No DTD, no entity: refused before parsing, so that nothing can be defined or expanded.
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) {
    throw new BankFileUnreadable('a DOCTYPE or ENTITY declaration is not accepted');
  }
  if (tooDeep(xml, MAX_BANK_XML_DEPTH)) {
    throw new BankFileUnreadable(`elements nested deeper than ${MAX_BANK_XML_DEPTH} levels`);
  }
  const ns = NAMESPACE.exec(xml.slice(0, 4096));
  if (!ns) throw new BankFileUnreadable('not an ISO 20022 message (no urn:iso:std:iso:20022 namespace)');
  const name = ns[1] as string;
  if (!accepted.includes(name)) {
    throw new BankFileUnreadable(`${name} is not a message Payrail reads (${accepted.join(', ')})`);
  }
  const valid = XMLValidator.validate(xml, { allowBooleanAttributes: false });
  if (valid !== true) {
    throw new BankFileUnreadable(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  }
  let parsed: XmlNode;
  try {
    parsed = parser.parse(xml) as XmlNode;
  } catch (err) {
    throw new BankFileUnreadable(`not well-formed XML: ${(err as Error).message}`);
  }
  const document = parsed.Document;
  if (!isNode(document)) throw new BankFileUnreadable('no Document element');
  return { type: name.slice(0, 8), name, document };
}

export const isNode = (value: unknown): value is XmlNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The child element `name` of `node` (the first when repeated), or undefined. */
export function child(node: XmlValue | undefined, ...path: string[]): XmlValue | undefined {
  let at: XmlValue | undefined = node;
  for (const name of path) {
    if (Array.isArray(at)) at = at[0];
    if (!isNode(at)) return undefined;
    at = at[name];
  }
  return at;
}

/** The repeated child elements `name` of `node` (empty when none). */
export function children(node: XmlValue | undefined, name: string): XmlNode[] {
  const value = isNode(node) ? node[name] : undefined;
  const all = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return all.filter(isNode);
}

/** The text of the element at `path` (decoded), or null when absent or empty. */
export function text(node: XmlValue | undefined, ...path: string[]): string | null {
  let at = child(node, ...path);
  if (Array.isArray(at)) at = at[0];
  if (isNode(at)) at = at['#text'];
  if (typeof at !== 'string') return null;
  const value = decodeXmlText(at).trim();
  return value === '' ? null : value;
}

/** `1234.5` → 123450n paise; more than two decimals (unless zeros), a sign or an exponent is a schema violation. */
export function parseRupees(value: string | null, where: string): bigint {
  const m = value === null ? null : /^(\d{1,16})(?:\.(\d{1,5}))?$/.exec(value);
  if (!m) throw new BankFileUnreadable(`${where}: "${value ?? ''}" is not an amount`);
  const fraction = (m[2] ?? '').padEnd(5, '0');
  if (!/^\d\d000$/.test(fraction)) throw new BankFileUnreadable(`${where}: ${value} has fractions of a paisa`);
  return BigInt(m[1] as string) * 100n + BigInt(fraction.slice(0, 2));
}

/** The texts of the repeated child elements `name` of `node` (empty ones left out). */
export function texts(node: XmlValue | undefined, name: string): string[] {
  const value = isNode(node) ? node[name] : undefined;
  const all = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return all.map((v) => text(v)).filter((v): v is string => v !== null);
}
