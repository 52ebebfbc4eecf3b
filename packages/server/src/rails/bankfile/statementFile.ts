import { MAX_STATEMENT_BYTES, StatementUnreadable, type BankStatement } from './bankStatement.ts';
import { parseCamt053 } from './camt053.ts';
import { parseMt940 } from './mt940.ts';

/** What the caller knows of a statement file: its format, or nothing (`auto`: XML is camt.053, text MT940). */
export type StatementFileFormat = 'camt.053' | 'mt940' | 'auto';

const XML_ENCODING = /^<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

/**
 * XML text in the encoding it declares (UTF-8 unless it says ISO-8859-1 or windows-1252), without a byte order
 * mark or white space before the declaration (which strict XML forbids but some banks' files have).
 */
function xmlText(bytes: Buffer): string {
  const head = bytes
    .subarray(0, 200)
    .toString('latin1')
    .replace(/^\uFEFF|^ï»¿/, '');
  const encoding = XML_ENCODING.exec(head.trimStart())?.[1]?.toLowerCase() ?? 'utf-8';
  if (['iso-8859-1', 'latin1', 'windows-1252', 'cp1252'].includes(encoding))
    return bytes.toString('latin1').trimStart();
  if (encoding !== 'utf-8' && encoding !== 'utf8') {
    throw new StatementUnreadable(`the XML declares encoding ${encoding}; send UTF-8 or ISO-8859-1`);
  }
  return bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
}

/**
 * Reads a statement file into its statements. `auto` tells the formats apart by the first character that is
 * not white space: `<` is XML (camt.053), anything else MT940. Throws StatementUnreadable with what is wrong.
 */
export function readStatementFile(bytes: Buffer, format: StatementFileFormat = 'auto'): BankStatement[] {
  if (bytes.length === 0) throw new StatementUnreadable('the statement is empty');
  if (bytes.length > MAX_STATEMENT_BYTES) throw new StatementUnreadable('the statement file is too large');
  const start = bytes
    .subarray(0, 64)
    .toString('latin1')
    .replace(/^\uFEFF|^ï»¿/, '')
    .trimStart();
  const isXml = start.startsWith('<');
  const kind = format === 'auto' ? (isXml ? 'camt.053' : 'mt940') : format;
  if (kind === 'camt.053') {
    if (!isXml) throw new StatementUnreadable('not XML: a camt.053 statement is an XML document');
    return parseCamt053(xmlText(bytes));
  }
  if (isXml) throw new StatementUnreadable('this is XML, not MT940: send a camt.053 document as application/xml');
  return parseMt940(bytes.toString('utf8'));
}
