/**
 * {@code sluice demo}: its own counting job with injected failures, the run with progress output,
 * and the check that every key's count is exact.
 *
 * <p>Layer 2 of 4 in sluice-dist (commands; docs/architecture.md). May use the packages of the
 * layers below: {@code cli.common}, and of its own layer: {@code cli.client}, {@code cli.cluster}.
 * Uses today: {@code cli.common}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.cli.demo;
