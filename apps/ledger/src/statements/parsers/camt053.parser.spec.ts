import { detectFormat } from './detect';
import { readCamt053 } from './camt053.parser';
import { collectStatements, itRefusesBadFiles } from './refusal.test-helper';

function ntry(ref: string, amount: string, indicator: string, details: string) {
  return `<Ntry><NtryRef>${ref}-n</NtryRef><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
    <BookgDt><Dt>2026-11-02</Dt></BookgDt><ValDt><Dt>2026-11-03</Dt></ValDt><AcctSvcrRef>${ref}</AcctSvcrRef>
    <BkTxCd><Domn><Cd>PMNT</Cd></Domn></BkTxCd><NtryDtls><TxDtls>${details}</TxDtls></NtryDtls></Ntry>`;
}

function stmt(iban: string, balances: [string, string, string][], entries: string) {
  const bal = balances
    .map(([code, amount, ind]) => `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${ind}</CdtDbtInd><Dt><Dt>2026-11-0${code === 'OPBD' ? 1 : 3}</Dt></Dt></Bal>`)
    .join('');
  return `<Stmt><Id>STMT-${iban}</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-11-04T06:00:00+01:00</CreDtTm>
    <FrToDt><FrDtTm>2026-11-01T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-03T23:59:59+01:00</ToDtTm></FrToDt>
    <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>${bal}${entries}</Stmt>`;
}

export const CAMT053 = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-04T06:00:00+01:00</CreDtTm></GrpHdr>
    ${stmt('DE89370400440532013000', [['OPBD', '1000.00', 'CRDT'], ['CLBD', '1205.40', 'CRDT']],
      ntry('BANKREF-1', '250.40', 'CRDT', '<Refs><EndToEndId>E2E-INV-7</EndToEndId></Refs><RltdPties><Dbtr><Pty><Nm>Müller &amp; Söhne GmbH</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>Rechnung Nr. 7 – Grüße</Ustrd><Ustrd>zweite Zeile</Ustrd></RmtInf>') +
      ntry('BANKREF-2', '45', 'DBIT', '<Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RltdPties><Cdtr><Pty><Nm>Stadtwerke</Nm></Pty></Cdtr></RltdPties>'))}
    ${stmt('FR7630006000011234567890189', [['OPBD', '10.00', 'DBIT'], ['CLBD', '0.01', 'DBIT']], ntry('FR-1', '9.99', 'CRDT', ''))}
  </BkToCstmrStmt>
</Document>`;

/** Batches of one entry, so every statement arrives in several. */
const parseCamt053 = (text: string) => collectStatements(readCamt053(Buffer.from(text, 'utf8'), 1));

describe('readCamt053', () => {
  it('reads every statement with signed balances and entries, keeping non-ASCII text', () => {
    const [first, second] = parseCamt053(CAMT053);
    expect(detectFormat(CAMT053)).toBe('camt053');
    expect(first).toMatchObject({ account_reference: 'DE89370400440532013000', currency: 'EUR', from: '2026-11-01', to: '2026-11-03', opening_balance: '100000', closing_balance: '120540' });
    expect(first.entries).toEqual([
      {
        external_id: 'BANKREF-1', amount: '25040', currency: 'EUR', booking_date: '2026-11-02', value_date: '2026-11-03',
        raw: { counterparty: 'Müller & Söhne GmbH', remittance: 'Rechnung Nr. 7 – Grüße zweite Zeile' },
        reference: { rail: 'iso20022', kind: 'end_to_end_id', value: 'E2E-INV-7' },
      },
      { external_id: 'BANKREF-2', amount: '-4500', currency: 'EUR', booking_date: '2026-11-02', value_date: '2026-11-03', raw: { counterparty: 'Stadtwerke', remittance: null }, reference: null },
    ]);
    expect(second).toMatchObject({ account_reference: 'FR7630006000011234567890189', opening_balance: '-1000', closing_balance: '-1', entries: [{ external_id: 'FR-1', amount: '999' }] });
  });

  itRefusesBadFiles(
    parseCamt053,
    [
      ['truncated XML', CAMT053.slice(0, 900), /line \d+: XML is malformed/],
      ['a bad indicator', CAMT053.replace('<CdtDbtInd>DBIT</CdtDbtInd><Sts>', '<CdtDbtInd>XX</CdtDbtInd><Sts>'), /Stmt\[0\]\/Ntry\[1\]: CdtDbtInd must be CRDT or DBIT/],
      ['a float-looking amount', CAMT053.replace('250.40', '250.401'), /Stmt\[0\]\/Ntry\[0\]: Amt has more decimals than EUR allows/],
      ['no statement', '<Document><BkToCstmrStmt/></Document>', /Stmt is missing/],
    ],
    [CAMT053], 'refuses %s naming the path and field',
  );

  it('yields entries in batches while the file is still being read, across slices that split a character', () => {
    // Over 2 MB of entries whose non-ASCII text lands on every slice boundary sooner or later.
    const many = Array.from({ length: 6000 }, (_, i) => ntry(`R-${i}`, '1.00', 'CRDT', `<RmtInf><Ustrd>Grüße ${'ü'.repeat(i % 7)}</Ustrd></RmtInf>`)).join('');
    const file = Buffer.from(`<Document><BkToCstmrStmt>${stmt('DE89370400440532013000', [['CLBD', '6000.00', 'CRDT']], many)}</BkToCstmrStmt></Document>`, 'utf8');
    expect(file.length).toBeGreaterThan(2 * 1024 * 1024);
    const reader = readCamt053(file, 500);
    const first = reader.next();
    // The first batch comes after the first slice, long before the statement closes.
    expect(first).toMatchObject({ done: false, value: { statement: 0, account_reference: 'DE89370400440532013000' } });
    const sizes = [(first.value as { entries: unknown[] }).entries.length];
    let next = reader.next();
    for (; !next.done; next = reader.next()) sizes.push(next.value.entries.length);
    expect(sizes.reduce((a, b) => a + b)).toBe(6000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000);
    expect(next.value).toEqual([expect.objectContaining({ entry_count: 6000, closing_balance: '600000' })]);
    const [statement] = collectStatements(readCamt053(file, 500));
    expect(statement.entries[5998]).toMatchObject({ external_id: 'R-5998', raw: { remittance: `Grüße ${'ü'.repeat(5998 % 7)}` } });
  });
});
