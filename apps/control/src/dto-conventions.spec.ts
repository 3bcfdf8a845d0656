import { dtoConventionBreaches, nestedDtoCount } from '@bursar/service-kit';
// Loads every controller, so every request DTO the control serves registers its validation.
import './control-app.module';

describe('control request DTOs', () => {
  it('validate every nested DTO as an object (NestedDto), so an array never passes as one', () => {
    expect(nestedDtoCount()).toBeGreaterThan(0);
    expect(dtoConventionBreaches()).toEqual([]);
  });
});
