import { detectFormat } from './detect';
import { parseMt940 } from './mt940.parser';
import { itRefusesBadFiles } from './refusal.test-helper';

export const MT940 = [
  '{1:F01BANKDEFFAXXX0000000000}{2:O9401200261104BANKDEFFAXXX00000000002611041200N}{4:',
  ':20:STMT20261103',
  ':25:10020030/1234567890',
  ':28C:00215/001',
  ':60F:C261102EUR1000,00',
  ':61:2611031103C250,40NTRFINV-7//BANK-000123',
  'SEPA CREDIT',
  ':86:166?00SEPA-GUTSCHRIFT?20Rechnung 7 Grüße ?21aus Köln?32Müller und',
  '?33 Söhne GmbH',
  ':61:2611031103D45,NDDTNONREF//BANK-000124',
  ':86:Lastschrift Stadtwerke, Strom',
  'November',
  ':62F:C261103EUR1205,40',
  '-}',
  '{1:F01BANKDEFFAXXX0000000000}{4:',
  ':20:STMT20261231',
  ':25:DE89370400440532013000',
  ':28C:1/1',
  ':60F:D261231EUR0,10',
  ':61:2612310102RD1,00NMSCREF-99',
  ':62F:C270102EUR0,90',
  '-}',
].join('\r\n');

describe('parseMt940', () => {
  it('reads several statements, continuation lines, structured and free :86:', () => {
    expect(detectFormat(MT940)).toBe('mt940');
    const [first, second] = parseMt940(MT940);
    expect(first).toMatchObject({ account_reference: '10020030/1234567890', currency: 'EUR', from: '2026-11-02', to: '2026-11-03', opening_balance: '100000', closing_balance: '120540' });
    expect(first.entries).toEqual([
      {
        external_id: 'BANK-000123', amount: '25040', currency: 'EUR', booking_date: '2026-11-03', value_date: '2026-11-03',
        raw: { counterparty: 'Müller und Söhne GmbH', remittance: 'Rechnung 7 Grüße aus Köln' },
        reference: { rail: 'swift', kind: 'customer_reference', value: 'INV-7' },
      },
      { external_id: 'BANK-000124', amount: '-4500', currency: 'EUR', booking_date: '2026-11-03', value_date: '2026-11-03', raw: { counterparty: null, remittance: 'Lastschrift Stadtwerke, Strom November' }, reference: null },
    ]);
    // A reversed debit (RD) is a credit, as the balances agree; its entry date rolls into the next year.
    expect(second).toMatchObject({ opening_balance: '-10', closing_balance: '90', entries: [{ external_id: 'REF-99', amount: '100', booking_date: '2027-01-02', value_date: '2026-12-31' }] });
  });

  itRefusesBadFiles(
    parseMt940,
    [
      ['a bad :61:', MT940.replace(':61:2611031103D45,', ':61:2611031103X45,'), /line 10: :61: must be/],
      ['a bad balance', MT940.replace(':60F:C261102EUR1000,00', ':60F:C261102EUR1000.00'), /line 5: :60F: must be/],
      ['a missing closing balance', MT940.replace(':62F:C261103EUR1205,40\r\n', ''), /:62F: is missing/],
      ['an impossible date', MT940.replace(':61:2611031103C', ':61:2613311103C'), /line 6: :61: is not a date/],
      ['no reference', MT940.replace('NDDTNONREF//BANK-000124', 'NDDTNONREF'), /line 10: :61: has neither/],
    ],
    [MT940], 'refuses %s naming the line and field',
  );
});
