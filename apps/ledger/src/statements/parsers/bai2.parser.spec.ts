import { detectFormat } from './detect';
import { parseBai2 } from './bai2.parser';
import { itRefusesBadFiles } from './refusal.test-helper';

export const BAI2 = [
  '01,BANKID,CUSTID,261103,0600,1,80,,2/',
  '02,CUSTID,BANKID,1,261103,2400,USD,2/',
  '03,123456789,USD,010,100000,,,015,',
  '88,120540,,/',
  '16,175,25040,Z,BR-1,INV-7,Payment from Acme, Bücher/',
  '16,475,4500,0,BR-2,1042,Check 1042 paid to',
  '88,Ærø Supplies/',
  '49,250080,6/',
  '03,987654321,USD,010,5000,,,015,4000,,/',
  '16,451,1000,V,261103,1200,ACH-1,,ACH debit/',
  '49,10000,3/',
  '98,260080,2,11/',
  '99,260080,1,13/',
].join('\n');

describe('parseBai2', () => {
  it('reads groups, accounts, continuations and details with checked totals', () => {
    expect(detectFormat(BAI2)).toBe('bai2');
    const [first, second] = parseBai2(BAI2);
    expect(first).toEqual({
      account_reference: '123456789', currency: 'USD', from: '2026-11-03', to: '2026-11-03', opening_balance: '100000', closing_balance: '120540',
      entries: [
        { external_id: 'BR-1', amount: '25040', currency: 'USD', booking_date: '2026-11-03', value_date: '2026-11-03', raw: { counterparty: null, remittance: 'Payment from Acme, Bücher' }, reference: null },
        { external_id: 'BR-2', amount: '-4500', currency: 'USD', booking_date: '2026-11-03', value_date: '2026-11-03', raw: { counterparty: null, remittance: 'Check 1042 paid to Ærø Supplies' }, reference: { rail: 'check', kind: 'check_number', value: '1042' } },
      ],
    });
    expect(second).toMatchObject({ account_reference: '987654321', opening_balance: '5000', closing_balance: '4000', entries: [{ external_id: 'ACH-1', amount: '-1000' }] });
  });

  itRefusesBadFiles(
    parseBai2,
    [
      ['an account total off by one', BAI2.replace('49,250080,6/', '49,250081,6/'), /line 8: account control total says 250081 but the records add up to 250080/],
      ['an account record count', BAI2.replace('49,10000,3/', '49,10000,4/'), /line 11: account record count says 4/],
      ['a group total', BAI2.replace('98,260080', '98,260079'), /line 12: group control total/],
      ['a file record count', BAI2.replace('99,260080,1,13/', '99,260080,1,12/'), /line 13: file record count says 12 but the records add up to 13/],
      ['a missing trailer', BAI2.replace('\n99,260080,1,13/', ''), /99 file trailer is missing/],
      ['an unknown record', BAI2.replace('16,451', '17,451'), /line 10: record code "17"/],
      ['a decimal amount', BAI2.replace('16,175,25040', '16,175,250.40'), /line 5: amount is not a whole amount/],
    ],
    [BAI2],
  );
});
