import { withCosignTiming } from './cosign-timing.settings';
import { withControlStorage } from './control-storage.settings';

/** The operator CLI needs the database, the key that seals cosigning keys, and when a rotated key may sign. */
export class ControlAdminSettings extends withControlStorage(withCosignTiming(class {})) {}
