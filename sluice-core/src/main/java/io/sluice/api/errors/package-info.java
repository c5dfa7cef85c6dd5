/**
 * The exceptions a job's author sees: {@code InvalidJobException} when a job cannot be built as
 * written, and {@code UnrecoverableJobException}, the mark of an error no restart can fix, with
 * its built-in kinds (a null key, conflicting state kinds, keyed state off a keyed stream, state of
 * another max parallelism).
 *
 * <p>Layer 1 of 11 in sluice-core (foundations; docs/architecture.md). The lowest layer: may use
 * only {@code util}, {@code config}, {@code api.tuple} of this module. Uses no other package of
 * this module today. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.api.errors;
