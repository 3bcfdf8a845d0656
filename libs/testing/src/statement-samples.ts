/*
 * One small, real-shaped statement file per format the ledger imports (POST /sources/{id}/statements):
 * credits and debits, references, non-ASCII remittance text. The statements e2e spec imports them,
 * and the HTTP fuzzer truncates and mutates them.
 */

const CAMT053 = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-11-04T06:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>S1</Id><Acct><Id><Othr><Id>CHK-1</Id></Othr></Id><Ccy>USD</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="USD">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="USD">205.40</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-03</Dt></Dt></Bal>
<Ntry><Amt Ccy="USD">250.40</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-02</Dt></BookgDt><ValDt><Dt>2026-11-02</Dt></ValDt><AcctSvcrRef>CAMT-1</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><EndToEndId>E2E-1</EndToEndId></Refs><RltdPties><Dbtr><Pty><Nm>Zoë Müller</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>Grüße</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="USD">45.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-11-03</Dt></BookgDt><AcctSvcrRef>CAMT-2</AcctSvcrRef></Ntry>
</Stmt></BkToCstmrStmt></Document>`;

const MT940 = [':20:S1', ':25:CHK-1', ':28C:1/1', ':60F:C261101USD0,', ':61:2611021102C10,00NTRFNONREF//MT-1', ':86:Zahlung Köln', ':62F:C261102USD10,00', '-'].join('\r\n');

const BAI2 = ['01,B,C,261102,0600,1,,,2/', '02,C,B,1,261102,2400,USD,2/', '03,CHK-1,USD,010,0,,,015,1100,,/', '16,175,1100,Z,BAI-1,,Deposit/', '49,2200,3/', '98,2200,1,5/', '99,2200,1,7/'].join('\n');

const OFX = `OFXHEADER:100
DATA:OFXSGML
VERSION:102

<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>CHK-1<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101<DTEND>20261102<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20261102<TRNAMT>12.00<FITID>OFX-1<NAME>Acme</STMTTRN></BANKTRANLIST>
<LEDGERBAL><BALAMT>12.00<DTASOF>20261102</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`;

const CSV = 'Date;Amount;Ref;Text\n02.11.2026;13,00;CSV-1;Überweisung\n';

/** The files by format name, as `?format=` spells it. */
export const STATEMENT_SAMPLES = { camt053: CAMT053, mt940: MT940, bai2: BAI2, ofx: OFX, csv: CSV } as const;

/** The source csv_mapping that reads STATEMENT_SAMPLES.csv. */
export const STATEMENT_SAMPLE_CSV_MAPPING = {
  delimiter: ';',
  date_column: 'Date',
  date_format: 'dd.MM.yyyy',
  amount_column: 'Amount',
  currency: 'USD',
  reference_column: 'Ref',
  description_column: 'Text',
  decimal_separator: ',',
};
