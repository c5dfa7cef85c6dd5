/**
 * {@code sluice jobmanager}: a job manager process.
 *
 * <p>Layer 3 of 4 in sluice-dist (process commands; docs/architecture.md). May use the packages of
 * the layers below: {@code cli.common}, {@code cli.client}, {@code cli.cluster}, {@code cli.demo},
 * and of its own layer: {@code cli.taskmanager}. Uses today: {@code cli.cluster}, {@code
 * cli.common}. Never a package of a layer above; no cycles (the module's architecture test checks
 * both).
 */
package io.sluice.cli.jobmanager;
