/**
 * How {@code execute} finds a runner: {@code JobExecutor}, its factory (found by {@code
 * ServiceLoader}), and the result of a run.
 *
 * <p>Layer 10 of 11 in sluice-core (job execution; docs/architecture.md). May use the packages of
 * the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, {@code api.source}, {@code api.sink}, {@code state}, {@code operators.timers},
 * {@code operators}, {@code operators.windowing}, {@code graph}. Uses today: {@code config},
 * {@code graph}. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.api.execution;
