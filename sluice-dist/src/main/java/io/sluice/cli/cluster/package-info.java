/**
 * {@code sluice cluster} (a local cluster with the REST server until stopped), and what the
 * process commands share with it: the configuration file and options, the REST port option, the
 * jar runner, waiting for a stop signal.
 *
 * <p>Layer 2 of 4 in sluice-dist (commands; docs/architecture.md). May use the packages of the
 * layers below: {@code cli.common}, and of its own layer: {@code cli.client}, {@code cli.demo}.
 * Uses today: {@code cli.common}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.cli.cluster;
