import { detectFormat } from './detect';
import { parseOfx } from './ofx.parser';
import { itRefusesBadFiles } from './refusal.test-helper';

export const OFX1 = `OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261104060000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1>
<STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>USD
<BANKACCTFROM><BANKID>121000248<ACCTID>000123456<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101<DTEND>20261103235959.000[-5:EST]
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20261102120000[-5:EST]<DTUSER>20261101<TRNAMT>250.40<FITID>FIT-1<NAME>Acme &amp; Co<MEMO>Invoice 7 – café</STMTTRN>
<STMTTRN><TRNTYPE>CHECK<DTPOSTED>20261103<TRNAMT>-45.00<FITID>FIT-2<CHECKNUM>1042<NAME>Landlord</STMTTRN>
</BANKTRANLIST>
<LEDGERBAL><BALAMT>1205.40<DTASOF>20261103</LEDGERBAL>
</STMTRS></STMTTRNRS>
</BANKMSGSRSV1>
</OFX>
`;

export const OFX2 = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <CREDITCARDMSGSRSV1>
    <CCSTMTTRNRS><TRNUID>2</TRNUID><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>
      <CCSTMTRS><CURDEF>EUR</CURDEF><CCACCTFROM><ACCTID>4111XXXXXXXX1111</ACCTID></CCACCTFROM>
        <BANKTRANLIST><DTSTART>20261101</DTSTART><DTEND>20261130</DTEND>
          <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20261105</DTPOSTED><TRNAMT>-12,5</TRNAMT><FITID>CC-1</FITID><NAME>Bäckerei Ölmühle</NAME></STMTTRN>
        </BANKTRANLIST>
        <LEDGERBAL><BALAMT>-12.50</BALAMT><DTASOF>20261130</DTASOF></LEDGERBAL>
      </CCSTMTRS>
    </CCSTMTTRNRS>
  </CREDITCARDMSGSRSV1>
</OFX>`;

describe('parseOfx', () => {
  it('reads OFX 1.x SGML with unclosed leaf elements', () => {
    expect(detectFormat(OFX1)).toBe('ofx');
    expect(parseOfx(OFX1)).toEqual([
      {
        account_reference: '000123456', currency: 'USD', from: '2026-11-01', to: '2026-11-03', opening_balance: null, closing_balance: '120540',
        entries: [
          { external_id: 'FIT-1', amount: '25040', currency: 'USD', booking_date: '2026-11-02', value_date: '2026-11-01', raw: { counterparty: 'Acme & Co', remittance: 'Invoice 7 – café' }, reference: null },
          { external_id: 'FIT-2', amount: '-4500', currency: 'USD', booking_date: '2026-11-03', value_date: '2026-11-03', raw: { counterparty: 'Landlord', remittance: null }, reference: { rail: 'check', kind: 'check_number', value: '1042' } },
        ],
      },
    ]);
  });

  it('reads OFX 2.x XML credit-card statements', () => {
    expect(detectFormat(OFX2)).toBe('ofx');
    expect(parseOfx(OFX2)).toEqual([
      {
        account_reference: '4111XXXXXXXX1111', currency: 'EUR', from: '2026-11-01', to: '2026-11-30', opening_balance: null, closing_balance: '-1250',
        entries: [{ external_id: 'CC-1', amount: '-1250', currency: 'EUR', booking_date: '2026-11-05', value_date: '2026-11-05', raw: { counterparty: 'Bäckerei Ölmühle', remittance: null }, reference: null }],
      },
    ]);
  });

  itRefusesBadFiles(
    parseOfx,
    [
      ['a truncated file', OFX2.slice(0, 500), /OFX is malformed/],
      ['a missing FITID', OFX1.replace('<FITID>FIT-2', ''), /STMTTRN\[1\]: FITID is missing/],
      ['a bad amount', OFX1.replace('<TRNAMT>250.40', '<TRNAMT>2x0'), /STMTTRN\[0\]: TRNAMT is not a decimal amount/],
      ['no statement', '<OFX></OFX>', /STMTRS no bank or credit-card statement/],
    ],
    [OFX1, OFX2],
  );
});
