/**
 * The job graph: vertices, edges, partitioning, job configuration, and the serialized user code of
 * a vertex ({@code VertexPayload}).
 *
 * <p>Layer 9 of 11 in sluice-core (job graph; docs/architecture.md). May use the packages of the
 * layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, {@code api.source}, {@code api.sink}, {@code state}, {@code operators.timers},
 * {@code operators}, {@code operators.windowing}. Uses today: {@code api.errors}, {@code
 * api.functions}, {@code api.source}, {@code config}, {@code core.serialization}, {@code
 * operators}. Never a package of a layer above; no cycles (the module's architecture test checks
 * both).
 */
package io.sluice.graph;
