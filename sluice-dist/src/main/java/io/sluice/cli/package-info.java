/**
 * The {@code sluice} command line's entry point ({@code SluiceCli}) and its usage errors.
 *
 * <p>Layer 4 of 4 in sluice-dist (entry point; docs/architecture.md). May use the packages of the
 * layers below: {@code cli.common}, {@code cli.client}, {@code cli.cluster}, {@code cli.demo},
 * {@code cli.jobmanager}, {@code cli.taskmanager}. Uses today: {@code cli.common}. Never a package
 * of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.cli;
