/**
 * `argon2()`: @node-rs/argon2 (a native addon), loaded by the first password hashed or checked — an
 * import into the local store, which authenticates with its in-process scheme, never loads it.
 */
export const argon2 = () => import('@node-rs/argon2');
