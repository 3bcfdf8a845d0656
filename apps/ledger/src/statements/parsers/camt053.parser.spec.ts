import { detectFormat } from './detect';
import { parseCamt053 } from './camt053.parser';
import { checkMutations, refusal } from './refusal.test-helper';

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

describe('parseCamt053', () => {
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

  it.each([
    ['truncated XML', CAMT053.slice(0, 900), /line \d+: XML is malformed/],
    ['a bad indicator', CAMT053.replace('<CdtDbtInd>DBIT</CdtDbtInd><Sts>', '<CdtDbtInd>XX</CdtDbtInd><Sts>'), /Stmt\[0\]\/Ntry\[1\]: CdtDbtInd must be CRDT or DBIT/],
    ['a float-looking amount', CAMT053.replace('250.40', '250.401'), /Stmt\[0\]\/Ntry\[0\]: Amt has more decimals than EUR allows/],
    ['no statement', '<Document><BkToCstmrStmt/></Document>', /Stmt is missing/],
  ])('refuses %s naming the path and field', (_name, text, message) => {
    const error = refusal(() => parseCamt053(text));
    expect([error.status, error.code]).toEqual([422, 'invalid_statement']);
    expect(error.message).toMatch(message);
  });

  it('reads or refuses (invalid_statement) every truncated and mutated file', () => {
    checkMutations(parseCamt053, CAMT053);
  });
});
