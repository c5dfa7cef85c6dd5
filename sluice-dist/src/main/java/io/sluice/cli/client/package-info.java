/**
 * The REST client commands: run, list, status, cancel, checkpoints.
 *
 * <p>Layer 2 of 4 in sluice-dist (commands; docs/architecture.md). May use the packages of the
 * layers below: {@code cli.common}, and of its own layer: {@code cli.cluster}, {@code cli.demo}.
 * Uses today: {@code cli.common}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.cli.client;
