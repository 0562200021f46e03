/**
 * The contract every `Store` implementation passes (the SQLite store now, a PostgreSQL store later):
 * a backend's own test file only says how to open a fresh, empty store.
 */
import { describe } from 'vitest';
import { eventListContract } from './contract/event-list.ts';
import { eventSearchContract } from './contract/event-search.ts';
import type { OpenStore } from './contract/fixtures.ts';
import { linkedListContract } from './contract/linked-list.ts';
import { oauthClientContract } from './contract/oauth-clients.ts';
import { postContract } from './contract/posts.ts';
import { termContract } from './contract/terms.ts';
import { transactionContract, userContract } from './contract/users-transactions.ts';

/** `open` returns a new, empty store each call; the suite closes it after each test. */
export function describeStoreContract(name: string, open: OpenStore): void {
  describe(`${name} store contract`, () => {
    postContract(open);
    eventListContract(open);
    eventSearchContract(open);
    linkedListContract(open);
    termContract(open);
    userContract(open);
    oauthClientContract(open);
    transactionContract(open);
  });
}
