/**
 * Event time: {@code WatermarkStrategy}, timestamp assigners, watermark generators.
 *
 * <p>Layer 2 of 11 in sluice-core (event time and windows; docs/architecture.md). May use the
 * packages of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code
 * api.tuple}, and of its own layer: {@code api.windowing}. Uses today: {@code api.errors}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.api.eventtime;
