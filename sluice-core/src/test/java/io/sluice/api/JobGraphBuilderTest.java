package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.sink.DiscardingSink;
import io.sluice.graph.JobEdge;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.graph.PartitionKind;
import io.sluice.graph.VertexPayload;
import org.junit.jupiter.api.Test;

/** How the API's plan becomes vertices (chains) and edges. */
class JobGraphBuilderTest {

    private static JobVertex vertexNamed(JobGraph g, String prefix) {
        return g.vertices().stream().filter(v -> v.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void forwardOperatorsOfEqualParallelismChainIntoOneVertex() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).map(v -> v + 1).filter(v -> v > 3).addSink(new DiscardingSink<>(), "out");
        JobGraph g = env.buildJobGraph("chain");
        assertThat(g.vertices()).hasSize(1);
        JobVertex v = g.vertices().get(0);
        assertThat(v.name()).isEqualTo("Source: Sequence 0..10 -> Map -> Filter -> Sink: out");
        assertThat(v.isSource()).isTrue();
        VertexPayload payload = v.deserializePayload(getClass().getClassLoader());
        assertThat(payload.operators()).hasSize(3);
        assertThat(g.edges()).isEmpty();
    }

    @Test
    void keyByStartsANewChainWithAHashEdgeAndKeyedState() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).keyBy(v -> v % 3).map(v -> v).addSink(new DiscardingSink<>());
        JobGraph g = env.buildJobGraph("keyed");
        assertThat(g.vertices()).hasSize(2);
        JobEdge e = g.edges().get(0);
        assertThat(e.partitioning()).isEqualTo(PartitionKind.HASH);
        JobVertex keyed = g.vertex(e.targetVertexId());
        assertThat(keyed.hasKeyedState()).isTrue();
        assertThat(keyed.name()).isEqualTo("Map -> Sink: DiscardingSink");
        assertThat(keyed.deserializePayload(getClass().getClassLoader()).inputKeySelector()).isNotNull();
    }

    @Test
    void differentParallelismBreaksTheChainWithARebalanceEdge() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).map(v -> v).setParallelism(1).addSink(new DiscardingSink<>()).setParallelism(1);
        JobGraph g = env.buildJobGraph("rescale");
        assertThat(g.vertices()).hasSize(2);
        assertThat(g.edges().get(0).partitioning()).isEqualTo(PartitionKind.REBALANCE);
        assertThat(vertexNamed(g, "Map").parallelism()).isEqualTo(1);
        assertThat(g.requiredSlots()).isEqualTo(2);
    }

    @Test
    void disableChainingAndRebalanceStartNewVertices() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).map(v -> v).disableChaining().rebalance().filter(v -> true)
                .addSink(new DiscardingSink<>());
        JobGraph g = env.buildJobGraph("no chain");
        assertThat(g.vertices()).extracting(JobVertex::name)
                .containsExactly("Source: Sequence 0..10", "Map", "Filter -> Sink: DiscardingSink");
        assertThat(g.edges()).extracting(JobEdge::partitioning)
                .containsExactly(PartitionKind.FORWARD, PartitionKind.REBALANCE);
    }

    @Test
    void unionGivesAVertexSeveralInputEdges() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        DataStream<Long> a = env.fromSequence(0, 10);
        DataStream<Long> b = env.fromSequence(100, 110);
        a.union(b).keyBy(v -> v % 2).map(v -> v).addSink(new DiscardingSink<>());
        JobGraph g = env.buildJobGraph("union");
        JobVertex map = vertexNamed(g, "Map");
        assertThat(map.inputEdgeIds()).hasSize(2);
        assertThat(g.edges()).allSatisfy(e -> assertThat(e.partitioning()).isEqualTo(PartitionKind.HASH));
    }

    @Test
    void operatorsNoSinkConsumesAreLeftOut() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
        DataStream<Long> s = env.fromSequence(0, 10);
        s.map(v -> v * 2).name("dangling");
        s.addSink(new DiscardingSink<>());
        JobGraph g = env.buildJobGraph("prune");
        assertThat(g.vertices()).extracting(JobVertex::name).noneMatch(n -> n.contains("dangling"));
    }

    @Test
    void theJobGraphSurvivesJavaSerialization() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).keyBy(v -> v % 3).reduce(Long::sum).addSink(new DiscardingSink<>());
        JobGraph g = env.buildJobGraph("bytes");
        JobGraph back = JobGraph.fromBytes(g.toBytes());
        assertThat(back.jobId()).isEqualTo(g.jobId());
        assertThat(back.vertices()).extracting(JobVertex::name).isEqualTo(g.vertices().stream().map(JobVertex::name).toList());
    }
}
