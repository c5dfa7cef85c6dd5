/**
 * What every command shares: exit codes and the duration converter.
 *
 * <p>Layer 1 of 4 in sluice-dist (shared options and exit codes; docs/architecture.md). The lowest
 * layer: uses no other package of this module. Never a package of a layer above; no cycles (the
 * module's architecture test checks both).
 */
package io.sluice.cli.common;
