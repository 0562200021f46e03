/** What every write needs: the store, the settings, the caller and one clock reading. */

import type { Caller } from '../../model/capabilities.ts';
import { formatUtcNow } from '../../model/datetime.ts';
import type { Store } from '../../store/store.ts';
import type { Config } from '../config.ts';
import type { ApiRequest } from '../request.ts';

export interface WriteContext {
  store: Store;
  cfg: Config;
  caller: Caller;
  /** `YYYY-MM-DD HH:MM:SS` UTC, read once per request. */
  now: string;
}

export function contextOf(req: ApiRequest): WriteContext {
  const { store, config } = req.server;
  return { store, cfg: config, caller: req.caller, now: formatUtcNow(config.now()) };
}
