package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.execution.ExecutionContext;
import io.sluice.api.execution.JobExecutionResult;
import io.sluice.config.Configuration;
import io.sluice.graph.JobGraph;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code env.execute(name)}: inside an {@link ExecutionContext} the context's executor gets the graph, built with the context's configuration. */
class ExecuteTest {

    private static void countingJob(StreamExecutionEnvironment env) {
        env.fromSequence(0, 99).keyBy(v -> v % 4).reduce(Long::sum).print();
    }

    @Test
    void insideAContextTheGraphGoesToItsExecutorWithTheRunsConfigurationOverTheProgramsOwn() throws Exception {
        AtomicReference<JobGraph> received = new AtomicReference<>();
        ExecutionContext context = new ExecutionContext(graph -> {
            received.set(graph);
            return new JobExecutionResult(graph.jobId(), graph.name(), "SUBMITTED");
        }, new Configuration(Map.of("pipeline.parallelism", "3", "checkpoints.interval", "2 s")));

        JobExecutionResult result = context.call(() -> {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create(
                    new Configuration(Map.of("pipeline.parallelism", "1", "checkpoints.retained", "5")));
            countingJob(env);
            return env.execute("counting");
        });

        assertThat(result.status()).isEqualTo("SUBMITTED");
        JobGraph graph = received.get();
        assertThat(graph.name()).isEqualTo("counting");
        assertThat(graph.vertices()).allSatisfy(v -> assertThat(v.parallelism()).isEqualTo(3));
        assertThat(graph.config().checkpointInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(graph.config().retainedCheckpoints()).isEqualTo(5);
        assertThat(ExecutionContext.current()).as("the binding ends with the call").isNull();
    }

    @Test
    void aSetterInTheProgramStillWinsOverTheRunsConfiguration() throws Exception {
        AtomicReference<JobGraph> received = new AtomicReference<>();
        ExecutionContext context = new ExecutionContext(graph -> {
            received.set(graph);
            return new JobExecutionResult(graph.jobId(), graph.name(), "SUBMITTED");
        }, new Configuration(Map.of("pipeline.parallelism", "3")));
        context.call(() -> {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
            countingJob(env);
            return env.execute("counting");
        });
        assertThat(received.get().vertices()).allSatisfy(v -> assertThat(v.parallelism()).isEqualTo(2));
    }

    @Test
    void withoutAContextAndWithoutARuntimeOnTheClassPathExecuteSaysWhatIsMissing() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        countingJob(env);
        assertThatThrownBy(() -> env.execute("counting"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No Sluice runtime on the class path")
                .hasMessageContaining("sluice run");
    }

    /** The cluster's job settings are defaults: under the program's configuration, which is under the run's overrides. */
    @Test
    void clusterDefaultsGoUnderTheProgramsConfigurationAndTheRunsOverridesOverIt() throws Exception {
        io.sluice.config.Configuration defaults = new io.sluice.config.Configuration(java.util.Map.of(
                "checkpoints.interval", "1 s", "pipeline.parallelism", "3", "checkpoints.dir", "/cluster/chk"));
        io.sluice.config.Configuration overrides = new io.sluice.config.Configuration(java.util.Map.of(
                "checkpoints.interval", "2 s"));
        ExecutionContext context = new ExecutionContext(graph -> {
            throw new AssertionError("not executed");
        }, defaults, overrides);
        StreamExecutionEnvironment env = context.call(() -> StreamExecutionEnvironment.create(
                new io.sluice.config.Configuration(java.util.Map.of("pipeline.parallelism", "5"))));
        assertThat(env.getParallelism()).as("the program's own configuration beats the cluster default").isEqualTo(5);
        assertThat(env.getCheckpointInterval()).as("the run's -D beats both").isEqualTo(java.time.Duration.ofSeconds(2));
        StreamExecutionEnvironment plain = context.call(StreamExecutionEnvironment::create);
        assertThat(plain.getParallelism()).as("a cluster default applies where nothing else is set").isEqualTo(3);
    }
}
