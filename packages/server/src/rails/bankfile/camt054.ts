import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import {
  BankFileUnreadable,
  MAX_BANK_FILE_BYTES,
  MAX_BANK_XML_DEPTH,
  MAX_WHOLE_BANK_FILE_BYTES,
  parseRupees,
} from './xmlRead.ts';

export const CAMT054_NAME = 'camt.054.001.08';

/** One transaction of a notification entry: what the inbox applies to a payout. */
export interface NotifiedTransaction {
  direction: 'CRDT' | 'DBIT';
  /** The entry's Sts/Cd: BOOK, PDNG, INFO. */
  entryStatus: string;
  /** Paise: the transaction's own amount, else the entry's (an entry of one transaction). */
  amount: bigint;
  currency: string;
  endToEndId: string | null;
  /** Refs/ClrSysRef: the UTR, when the bank gives it. */
  clearingReference: string | null;
  /** The entry's (or the transaction's) AcctSvcrRef. */
  accountServicerReference: string | null;
  /** RtrInf present: this credit is money sent back. */
  isReturn: boolean;
  returnReasonCode: string | null;
  returnAdditionalInfo: string | null;
  /**
   * A credit's parties, where a deposit to a virtual account is read from (rails/bankfile/bankCredits.ts): the
   * creditor account (RltdPties/CdtrAcct), the remittance information (RmtInf/Ustrd, else the entry's AddtlNtryInf),
   * the remitter's name, account and IFSC (Dbtr, DbtrAcct, DbtrAgt's ClrSysMmbId). Absent on a debit.
   */
  parties?: NotifiedParties;
}

export interface NotifiedParties {
  creditorAccount: string | null;
  remittance: string | null;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
}

export interface Notification {
  msgId: string;
  transactions: NotifiedTransaction[];
}

/**
 * Which elements the reader keeps, below the document: `text` when their own text is read, `children` the elements
 * read below them. `stream`: an element handled when it closes and then dropped (each Ntry), or only counted
 * (Ntfctn), so that what is held does not grow with the file. Every other element is skipped unread.
 */
interface Spec {
  readonly text?: true;
  readonly children?: Readonly<Record<string, Spec>>;
  readonly stream?: 'entry' | 'notification';
}

const TEXT: Spec = { text: true };
/** An account's identifier: IBAN, or Othr/Id (an Indian account number, a virtual account). */
const ACCOUNT: Spec = { children: { Id: { children: { IBAN: TEXT, Othr: { children: { Id: TEXT } } } } } };
const TRANSACTION: Spec = {
  children: {
    Amt: TEXT,
    CdtDbtInd: TEXT,
    Refs: { children: { EndToEndId: TEXT, ClrSysRef: TEXT, AcctSvcrRef: TEXT } },
    RtrInf: { children: { Rsn: { children: { Cd: TEXT, Prtry: TEXT } }, AddtlInf: TEXT } },
    // A credit's parties (version 08 names the debtor Dbtr/Pty/Nm; older banks' files Dbtr/Nm).
    RltdPties: {
      children: {
        Dbtr: { children: { Nm: TEXT, Pty: { children: { Nm: TEXT } } } },
        DbtrAcct: ACCOUNT,
        CdtrAcct: ACCOUNT,
      },
    },
    RltdAgts: {
      children: { DbtrAgt: { children: { FinInstnId: { children: { ClrSysMmbId: { children: { MmbId: TEXT } } } } } } },
    },
    RmtInf: { children: { Ustrd: TEXT } },
  },
};
const ENTRY: Spec = {
  stream: 'entry',
  children: {
    Amt: TEXT,
    CdtDbtInd: TEXT,
    Sts: { text: true, children: { Cd: TEXT } },
    AcctSvcrRef: TEXT,
    AddtlNtryInf: TEXT,
    NtryDtls: { children: { TxDtls: TRANSACTION } },
  },
};
const DOCUMENT: Spec = {
  children: {
    BkToCstmrDbtCdtNtfctn: {
      children: {
        GrpHdr: { children: { MsgId: TEXT } },
        Ntfctn: { stream: 'notification', children: { Ntry: ENTRY } },
      },
    },
  },
};

/**
 * An element as read: its own text (when its spec reads it), its Ccy attribute, and its children of the spec in
 * order. `node`: it has a child element or an attribute other than a namespace declaration. An element without
 * either counts as absent where the reader expects a structure (an empty `<Ntry/>`, a `<TxDtls>text</TxDtls>`),
 * as the tree reader before it did.
 */
interface Element {
  text: string;
  ccy: string | null;
  node: boolean;
  children: Map<string, Element[]> | null;
}

interface Frame {
  spec: Spec;
  element: Element;
}

const ISO_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})$/;
const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
};
const isNamespaceDeclaration = (name: string) => name === 'xmlns' || name.startsWith('xmlns:');

/** The first child `name` of the first child … along `path`. */
function first(element: Element | undefined, ...path: string[]): Element | undefined {
  let at = element;
  for (const name of path) at = at?.children?.get(name)?.[0];
  return at;
}

/** Every child `name` that is a structure (see Element.node). */
function structures(element: Element | undefined, name: string): Element[] {
  return element?.children?.get(name)?.filter((e) => e.node) ?? [];
}

/**
 * The element's text, trimmed; null when absent or empty. A copy: a substring of the parser's chunk would keep the
 * whole chunk (64 KiB) alive in V8 for as long as the transaction is held, and with it the file.
 */
function value(element: Element | undefined): string | null {
  const text = element?.text.trim();
  return text ? own(text) : null;
}

function own(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** The values the inbox compares with, shared rather than held once per entry. */
const COMMON = new Map(['BOOK', 'PDNG', 'INFO', 'INR', 'CRDT', 'DBIT'].map((v) => [v, v]));
const common = (text: string) => COMMON.get(text) ?? text;

/**
 * Reads a camt.054.001.08 notification as its bytes arrive (`write` each chunk, then `end`), with what it holds
 * bounded by the transactions it yields: each Ntry is read into a small tree of the elements the inbox uses,
 * turned into its transactions and dropped. SAX parsing by `saxes` (strict XML 1.0 well-formedness). The checks
 * are those of the tree reader before it: nothing before the first `<` but white space and a byte order mark, no
 * DOCTYPE or ENTITY declaration (refused before the parser sees it), nesting at most MAX_BANK_XML_DEPTH, the
 * ISO 20022 namespace of camt.054.001.08 on the root, well-formed, the schema's required elements, amounts exact in
 * paise. Every refusal is a BankFileUnreadable with the reason; after one, the reader takes nothing more.
 */
export class Camt054Reader {
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private readonly decoder = new StringDecoder('utf8');
  private readonly frames: (Frame | null)[] = [];
  private readonly document: Element = { text: '', ccy: null, node: false, children: null };
  private bytes = 0;
  /** The first `<` has been seen; before it only white space (and a byte order mark) is accepted. */
  private started = false;
  private sawRoot = false;
  /** The end of the last chunk before the root, for a DOCTYPE split across two chunks. */
  private prolog = '';
  private notifications = 0;
  private entryNumber = 0;
  private badDirection: string | null = null;
  private failed: BankFileUnreadable | null = null;
  private readonly transactions: NotifiedTransaction[] = [];

  constructor(private readonly maxBytes: number = MAX_BANK_FILE_BYTES) {
    this.parser.on('error', (err) => {
      // An entity no DTD defines (there is none) is kept as written, as the reader before this one did.
      if (err.message.endsWith('undefined entity.')) return;
      const at = /^(\d+):(\d+): /.exec(err.message);
      const message = at ? err.message.slice(at[0].length) : err.message;
      throw new BankFileUnreadable(
        `not well-formed XML: ${message.replace(/\.$/, '')}${at ? ` (line ${at[1]}, column ${at[2]})` : ''}`,
      );
    });
    this.parser.on('doctype', () => {
      throw new BankFileUnreadable('a DOCTYPE or ENTITY declaration is not accepted');
    });
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
    this.parser.on('closetag', () => this.close());
  }

  /** Takes the next bytes of the file. Throws BankFileUnreadable as soon as the file is known to be unreadable. */
  write(chunk: Uint8Array): void {
    this.guard(() => {
      this.bytes += chunk.length;
      if (this.bytes > this.maxBytes) throw new BankFileUnreadable(`the file is larger than ${this.maxBytes} bytes`);
      this.feed(this.decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
    });
  }

  /** The notification, once every byte has been written. */
  end(): Notification {
    return this.guard(() => {
      const rest = this.decoder.end();
      if (this.bytes === 0) throw new BankFileUnreadable('the file is empty');
      this.feed(rest);
      if (!this.started) throw new BankFileUnreadable('not XML');
      this.parser.close();
      if (!this.document.node) throw new BankFileUnreadable('no Document element');
      const roots = this.document.children?.get('BkToCstmrDbtCdtNtfctn') ?? [];
      const root = roots[0];
      if (roots.length !== 1 || !root?.node) throw new BankFileUnreadable('no BkToCstmrDbtCdtNtfctn element');
      const msgId = value(first(root, 'GrpHdr', 'MsgId'));
      if (!msgId) throw new BankFileUnreadable('GrpHdr/MsgId is missing');
      if (this.notifications === 0) throw new BankFileUnreadable('no Ntfctn element');
      if (this.badDirection !== null) {
        throw new BankFileUnreadable(`TxDtls/CdtDbtInd "${this.badDirection}" is neither CRDT nor DBIT`);
      }
      return { msgId, transactions: this.transactions };
    });
  }

  private guard<T>(fn: () => T): T {
    if (this.failed) throw this.failed;
    try {
      return fn();
    } catch (err) {
      const unreadable =
        err instanceof BankFileUnreadable ? err : new BankFileUnreadable(`not readable: ${(err as Error).message}`);
      this.failed = unreadable;
      throw unreadable;
    }
  }

  private feed(text: string): void {
    if (!this.started) {
      const start = text.replace(/^\uFEFF/, '').trimStart();
      if (start === '') return;
      if (!start.startsWith('<')) throw new BankFileUnreadable('not XML');
      this.started = true;
      text = start;
    }
    if (!this.sawRoot) {
      // No DTD: refused before the parser reads one, so that nothing can be defined, let alone expanded.
      if (/<!(?:DOCTYPE|ENTITY)/i.test(this.prolog + text)) {
        throw new BankFileUnreadable('a DOCTYPE or ENTITY declaration is not accepted');
      }
      this.prolog = text.slice(-8);
    }
    this.parser.write(text);
  }

  private open(tag: SaxesTagPlain): void {
    const depth = this.frames.length + 1;
    if (depth > MAX_BANK_XML_DEPTH) {
      throw new BankFileUnreadable(`elements nested deeper than ${MAX_BANK_XML_DEPTH} levels`);
    }
    const name = localName(tag.name);
    if (depth === 1) {
      this.sawRoot = true;
      this.root(tag);
      if (name !== 'Document') throw new BankFileUnreadable('no Document element');
      this.document.node = attributesOf(tag).node;
      this.frames.push({ spec: DOCUMENT, element: this.document });
      return;
    }
    const parent = this.frames[depth - 2];
    if (!parent) {
      this.frames.push(null);
      return;
    }
    parent.element.node = true;
    const spec = parent.spec.children?.[name];
    if (!spec) {
      this.frames.push(null);
      return;
    }
    const element: Element = { text: '', ...attributesOf(tag), children: null };
    if (spec.stream === undefined) {
      const siblings = (parent.element.children ??= new Map());
      const same = siblings.get(name);
      if (same) same.push(element);
      else siblings.set(name, [element]);
    }
    this.frames.push({ spec, element });
  }

  /** The root's namespace names the message: ISO 20022, and camt.054.001.08. */
  private root(tag: SaxesTagPlain): void {
    let message: string | null = null;
    for (const attribute in tag.attributes) {
      if (!isNamespaceDeclaration(attribute)) continue;
      message ??= ISO_NAMESPACE.exec(tag.attributes[attribute] as string)?.[1] ?? null;
    }
    if (!message) throw new BankFileUnreadable('not an ISO 20022 message (no urn:iso:std:iso:20022 namespace)');
    if (message !== CAMT054_NAME) {
      throw new BankFileUnreadable(`${message} is not a message Payrail reads (${CAMT054_NAME})`);
    }
  }

  private text(text: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame?.spec.text) frame.element.text += text;
  }

  private close(): void {
    const frame = this.frames.pop();
    if (!frame?.spec.stream || !frame.element.node) return;
    if (frame.spec.stream === 'notification') this.notifications++;
    else this.entry(frame.element);
  }

  /** One Ntry: its transactions (its TxDtls, or the entry itself when it has none). */
  private entry(entry: Element): void {
    const where = `Ntry ${++this.entryNumber}`;
    const amount = parseRupees(value(first(entry, 'Amt')), `${where}/Amt`);
    const currency = first(entry, 'Amt')?.ccy;
    if (!currency || !/^[A-Z]{3}$/.test(currency)) throw new BankFileUnreadable(`${where}/Amt has no currency`);
    const direction = value(first(entry, 'CdtDbtInd'));
    if (direction !== 'CRDT' && direction !== 'DBIT') {
      throw new BankFileUnreadable(`${where}: CdtDbtInd "${direction ?? ''}" is neither CRDT nor DBIT`);
    }
    const status = value(first(entry, 'Sts', 'Cd')) ?? value(first(entry, 'Sts'));
    if (!status) throw new BankFileUnreadable(`${where}: Sts is missing`);
    const entryStatus = common(status);
    const entryRef = value(first(entry, 'AcctSvcrRef'));
    const details = structures(entry, 'NtryDtls').flatMap((d) => structures(d, 'TxDtls'));
    if (details.length === 0) {
      this.transactions.push({
        direction,
        entryStatus,
        amount,
        currency: common(currency),
        endToEndId: null,
        clearingReference: null,
        accountServicerReference: entryRef,
        isReturn: false,
        returnReasonCode: null,
        returnAdditionalInfo: null,
        ...(direction === 'CRDT' ? { parties: partiesOf(undefined, value(first(entry, 'AddtlNtryInf'))) } : {}),
      });
      return;
    }
    for (const tx of details) {
      const ownAmount = first(tx, 'Amt');
      const txAmount = ownAmount ? parseRupees(value(ownAmount), `${where}/TxDtls/Amt`) : null;
      if (txAmount === null && details.length > 1) {
        throw new BankFileUnreadable(`${where}: an entry of several transactions needs TxDtls/Amt on each`);
      }
      const txDirection = value(first(tx, 'CdtDbtInd'));
      // Reported after the whole file has been read, as the reader before this one did.
      if (txDirection !== null && txDirection !== 'CRDT' && txDirection !== 'DBIT') this.badDirection ??= txDirection;
      const returned = first(tx, 'RtrInf');
      const additional = returned?.children
        ?.get('AddtlInf')
        ?.map(value)
        .filter((v) => v !== null)
        .join(' ');
      const finalDirection = txDirection === 'CRDT' || txDirection === 'DBIT' ? txDirection : direction;
      this.transactions.push({
        direction: finalDirection,
        entryStatus,
        amount: txAmount ?? amount,
        currency: common(ownAmount?.ccy ?? currency),
        endToEndId: value(first(tx, 'Refs', 'EndToEndId')),
        clearingReference: value(first(tx, 'Refs', 'ClrSysRef')),
        accountServicerReference: value(first(tx, 'Refs', 'AcctSvcrRef')) ?? entryRef,
        isReturn: returned !== undefined,
        returnReasonCode: returned
          ? (value(first(returned, 'Rsn', 'Cd')) ?? value(first(returned, 'Rsn', 'Prtry')))
          : null,
        returnAdditionalInfo: additional ? own(additional) : null,
        ...(finalDirection === 'CRDT' && returned === undefined
          ? { parties: partiesOf(tx, value(first(entry, 'AddtlNtryInf'))) }
          : {}),
      });
    }
  }
}

/** An account element's identifier: its IBAN, else its Othr/Id. */
function accountId(account: Element | undefined): string | null {
  return value(first(account, 'Id', 'IBAN')) ?? value(first(account, 'Id', 'Othr', 'Id'));
}

/** A credit's parties as its TxDtls gives them (none for an entry without details: only its AddtlNtryInf). */
function partiesOf(tx: Element | undefined, entryInfo: string | null): NotifiedParties {
  const parties = first(tx, 'RltdPties');
  const ustrd = tx?.children
    ?.get('RmtInf')
    ?.flatMap((r) => r.children?.get('Ustrd') ?? [])
    .map(value)
    .filter((v) => v !== null)
    .join(' ');
  return {
    creditorAccount: accountId(first(parties, 'CdtrAcct')),
    remittance: ustrd ? own(ustrd) : entryInfo,
    remitterName: value(first(parties, 'Dbtr', 'Pty', 'Nm')) ?? value(first(parties, 'Dbtr', 'Nm')),
    remitterAccount: accountId(first(parties, 'DbtrAcct')),
    remitterIfsc: value(first(tx, 'RltdAgts', 'DbtrAgt', 'FinInstnId', 'ClrSysMmbId', 'MmbId')),
  };
}

/** What an element's attributes say (see Element): `node` when it has one other than a namespace declaration. */
function attributesOf(tag: SaxesTagPlain): Pick<Element, 'ccy' | 'node'> {
  let ccy: string | null = null;
  let node = false;
  for (const attribute in tag.attributes) {
    if (isNamespaceDeclaration(attribute)) continue;
    node = true;
    if (localName(attribute) === 'Ccy') ccy ??= tag.attributes[attribute] as string;
  }
  return { ccy, node };
}

/** Reads a camt.054.001.08 notification as it streams from `source` (chunks of its bytes: a Readable, an array). */
export async function readCamt054Stream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  maxBytes: number = MAX_BANK_FILE_BYTES,
): Promise<Notification> {
  const reader = new Camt054Reader(maxBytes);
  for await (const chunk of source) reader.write(chunk);
  return reader.end();
}

/**
 * Reads a camt.054.001.08 notification held in memory (at most MAX_WHOLE_BANK_FILE_BYTES, as every message read
 * whole); BankFileUnreadable when it is not one, or breaks its schema. The inbox streams instead (readCamt054Stream).
 */
export function readCamt054(bytes: Buffer): Notification {
  const reader = new Camt054Reader(MAX_WHOLE_BANK_FILE_BYTES);
  reader.write(bytes);
  return reader.end();
}
