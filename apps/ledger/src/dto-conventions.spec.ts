import { dtoConventionBreaches, nestedDtoCount } from '@bursar/service-kit';
// Loads every controller, so every request DTO the ledger serves registers its validation.
import './ledger-app.module';

describe('ledger request DTOs', () => {
  it('validate every nested DTO as an object (NestedDto), so an array never passes as one', () => {
    expect(nestedDtoCount()).toBeGreaterThan(0);
    expect(dtoConventionBreaches()).toEqual([]);
  });
});
