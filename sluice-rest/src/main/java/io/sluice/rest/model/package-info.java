/**
 * The JSON bodies of the REST API (views of jobs, checkpoints, exceptions, jars, runs).
 *
 * <p>Layer 1 of 6 in sluice-rest (JSON model; docs/architecture.md). The lowest layer: uses no
 * other package of this module. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.rest.model;
