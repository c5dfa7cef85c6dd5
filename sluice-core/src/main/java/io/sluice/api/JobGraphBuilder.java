package io.sluice.api;

import io.sluice.api.functions.KeySelector;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.api.errors.InvalidJobException;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobEdge;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import io.sluice.graph.PartitionKind;
import io.sluice.graph.VertexPayload;
import io.sluice.operators.StreamOperator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the logical plan into a {@link JobGraph}: prunes what no sink consumes, resolves
 * parallelism, turns partitioning and unions into edges, chains operators, and serializes each
 * chain's user code (which is where unserializable functions are caught).
 *
 * <p>Chaining rule: an operator joins its input's chain when its only input arrives by an
 * implicit forward edge from an operator with the same parallelism that has no other consumer,
 * and neither side disabled chaining. Keyed operators therefore always start a chain.
 */
final class JobGraphBuilder {
    static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;

    private final String jobName;
    private final JobId jobId;
    private final List<Transformation<?>> all;
    private final int defaultParallelism;
    private final int maxParallelism;
    private final JobConfig config;

    JobGraphBuilder(String jobName, JobId jobId, List<Transformation<?>> all, int defaultParallelism,
                    int maxParallelism, JobConfig config) {
        this.jobName = jobName;
        this.jobId = jobId;
        this.all = all;
        this.defaultParallelism = defaultParallelism;
        this.maxParallelism = maxParallelism;
        this.config = config;
    }

    /** An edge between two physical nodes of the plan. */
    /** {@code side}: the side output the edge carries, or {@code null} for the main output. */
    private record PhysicalEdge(Transformation<?> from, Transformation<?> to, PartitionKind kind, KeySelector<?, ?> keySelector,
                                Transformation.SideOutputNode<?> side) {
        TypeSerializer<?> serializer() {
            return side == null ? from.serializer : side.serializer;
        }

        String sideOutput() {
            return side == null ? null : side.tag.id();
        }
    }

    JobGraph build() {
        if (jobName == null || jobName.isBlank()) {
            throw new InvalidJobException("A job needs a name");
        }
        if (maxParallelism < 1 || maxParallelism > UPPER_BOUND_MAX_PARALLELISM) {
            throw new InvalidJobException("Job '" + jobName + "': max parallelism " + maxParallelism
                    + " is out of range; it must be between 1 and " + UPPER_BOUND_MAX_PARALLELISM);
        }
        List<Transformation<?>> sinks = all.stream()
                .filter(t -> t instanceof Transformation.OperatorNode<?, ?> n && n.sink).toList();
        if (sinks.isEmpty()) {
            throw new InvalidJobException("Job '" + jobName + "' has no sink: its results would go nowhere."
                    + " End the pipeline with print(), writeAsTextAtLeastOnce(...) or addSink(...).");
        }
        Set<Transformation<?>> used = new HashSet<>();
        for (Transformation<?> s : sinks) {
            markUsed(s, used);
        }
        List<Transformation<?>> physical = all.stream().filter(used::contains).toList();
        Map<Transformation<?>, Integer> parallelism = new HashMap<>();
        for (Transformation<?> t : physical) {
            int p = t.parallelism == -1 ? defaultParallelism : t.parallelism;
            if (p < 1 || p > maxParallelism) {
                throw new InvalidJobException("Job '" + jobName + "': operator '" + t.name + "' has parallelism " + p
                        + "; it must be between 1 and the job's max parallelism " + maxParallelism
                        + (t.parallelism == -1 ? " (the parallelism came from the environment's default)" : ""));
            }
            parallelism.put(t, p);
        }

        List<PhysicalEdge> edges = new ArrayList<>();
        for (Transformation<?> t : physical) {
            if (t instanceof Transformation.OperatorNode<?, ?> node) {
                resolveInputs(node.input, node, null, null, null, edges, parallelism);
            }
        }
        Map<Transformation<?>, List<PhysicalEdge>> outEdges = new HashMap<>();
        Map<Transformation<?>, List<PhysicalEdge>> inEdges = new HashMap<>();
        for (PhysicalEdge e : edges) {
            outEdges.computeIfAbsent(e.from, k -> new ArrayList<>()).add(e);
            inEdges.computeIfAbsent(e.to, k -> new ArrayList<>()).add(e);
        }

        // Chains: head -> members in order.
        Map<Transformation<?>, Transformation<?>> headOf = new HashMap<>();
        Map<Transformation<?>, List<Transformation<?>>> chains = new LinkedHashMap<>();
        for (Transformation<?> t : physical) {
            List<PhysicalEdge> in = inEdges.getOrDefault(t, List.of());
            boolean chain = false;
            if (in.size() == 1 && t.chainingAllowed) {
                PhysicalEdge e = in.get(0);
                chain = e.kind == PartitionKind.FORWARD && e.from.chainingAllowed && e.side == null
                        && outEdges.get(e.from).size() == 1 && implicitForward(e);
            }
            if (chain) {
                Transformation<?> head = headOf.get(in.get(0).from);
                headOf.put(t, head);
                chains.get(head).add(t);
            } else {
                headOf.put(t, t);
                chains.put(t, new ArrayList<>(List.of(t)));
            }
        }

        Map<Transformation<?>, Integer> vertexIds = new HashMap<>();
        int nextVertex = 1;
        for (Transformation<?> head : chains.keySet()) {
            vertexIds.put(head, nextVertex++);
        }
        List<JobEdge> jobEdges = new ArrayList<>();
        Map<Integer, List<Integer>> vertexInputs = new HashMap<>();
        Map<Integer, List<Integer>> vertexOutputs = new HashMap<>();
        Map<Integer, Map<Integer, TypeSerializer<?>>> inputSerializers = new HashMap<>();
        Map<Integer, Map<Integer, VertexPayload.OutputSpec>> outputs = new HashMap<>();
        Map<Integer, Set<Integer>> timestampedInputs = new HashMap<>();
        int nextEdge = 1;
        for (PhysicalEdge e : edges) {
            Transformation<?> fromHead = headOf.get(e.from);
            Transformation<?> toHead = headOf.get(e.to);
            if (fromHead == toHead) {
                continue; // chained
            }
            int edgeId = nextEdge++;
            int from = vertexIds.get(fromHead);
            int to = vertexIds.get(toHead);
            jobEdges.add(new JobEdge(edgeId, from, to, e.kind));
            vertexOutputs.computeIfAbsent(from, k -> new ArrayList<>()).add(edgeId);
            vertexInputs.computeIfAbsent(to, k -> new ArrayList<>()).add(edgeId);
            inputSerializers.computeIfAbsent(to, k -> new LinkedHashMap<>()).put(edgeId, e.serializer());
            outputs.computeIfAbsent(from, k -> new LinkedHashMap<>())
                    .put(edgeId, new VertexPayload.OutputSpec(e.serializer(), e.keySelector, e.kind, e.from.timestamped,
                            e.sideOutput()));
            if (e.from.timestamped) {
                timestampedInputs.computeIfAbsent(to, k -> new HashSet<>()).add(edgeId);
            }
        }

        List<JobVertex> vertices = new ArrayList<>();
        for (Map.Entry<Transformation<?>, List<Transformation<?>>> chain : chains.entrySet()) {
            Transformation<?> head = chain.getKey();
            int id = vertexIds.get(head);
            List<StreamOperator<?>> ops = new ArrayList<>();
            List<String> names = new ArrayList<>();
            io.sluice.api.source.Source<?> source = null;
            KeySelector<?, ?> keySelector = null;
            TypeSerializer<?> keySerializer = null;
            for (Transformation<?> member : chain.getValue()) {
                names.add(member.name);
                if (member instanceof Transformation.SourceNode<?> s) {
                    source = s.source;
                } else if (member instanceof Transformation.OperatorNode<?, ?> n) {
                    ops.add(n.operator);
                    if (n.watermarkStrategy != null) {
                        n.watermarkStrategy.validate(n.name);
                    }
                    if (n.windowAssigner != null) {
                        n.windowAssigner.validate(n.name);
                        if (n.windowAssigner.isEventTime() && !n.input.timestamped) {
                            throw new InvalidJobException("Operator '" + n.name + "' uses event-time windows, but its"
                                    + " input has no timestamps. Apply a WatermarkStrategy upstream (env.fromSource("
                                    + "source, strategy, name) or stream.assignTimestampsAndWatermarks(strategy)), or use"
                                    + " processing-time windows.");
                        }
                    }
                    if (member == head) {
                        keySelector = n.keySelector;
                        keySerializer = n.keySerializer;
                        if (keySelector != null && keySerializer == null) {
                            KeyTypes.requireCheckpointableKeys(keySelector, n.name);
                        }
                        if (keySelector != null) {
                            KeyTypes.requireStableKeyHash(keySelector, n.name);
                        }
                    }
                }
            }
            String name = String.join(" -> ", names);
            VertexPayload payload = new VertexPayload(source, ops, keySelector,
                    inputSerializers.getOrDefault(id, Map.of()), outputs.getOrDefault(id, Map.of()), keySerializer,
                    timestampedInputs.getOrDefault(id, Set.of()));
            vertices.add(new JobVertex(id, name, parallelism.get(head), maxParallelism, source != null,
                    keySelector != null, vertexInputs.getOrDefault(id, List.of()),
                    vertexOutputs.getOrDefault(id, List.of()), payload.serialize(name),
                    source != null && source.redistributesPositions()));
        }
        return new JobGraph(jobId, jobName, vertices, jobEdges, config);
    }

    private static boolean implicitForward(PhysicalEdge e) {
        return e.keySelector == null;
    }

    private void markUsed(Transformation<?> t, Set<Transformation<?>> used) {
        if (t instanceof Transformation.PartitionNode<?> || t instanceof Transformation.UnionNode<?>
                || t instanceof Transformation.SideOutputNode<?>) {
            for (Transformation<?> in : t.inputs()) {
                markUsed(in, used);
            }
            return;
        }
        if (used.add(t)) {
            for (Transformation<?> in : t.inputs()) {
                markUsed(in, used);
            }
        }
    }

    private void resolveInputs(Transformation<?> input, Transformation<?> consumer, PartitionKind kind,
                               KeySelector<?, ?> keySelector, Transformation.SideOutputNode<?> side,
                               List<PhysicalEdge> edges, Map<Transformation<?>, Integer> parallelism) {
        if (input instanceof Transformation.PartitionNode<?> p) {
            resolveInputs(p.input, consumer, p.kind, p.keySelector, side, edges, parallelism);
        } else if (input instanceof Transformation.UnionNode<?> u) {
            for (Transformation<?> in : u.inputs()) {
                resolveInputs(in, consumer, kind, keySelector, side, edges, parallelism);
            }
        } else if (input instanceof Transformation.SideOutputNode<?> s) {
            resolveInputs(s.input, consumer, kind, keySelector, s, edges, parallelism);
        } else {
            PartitionKind k = kind;
            if (k == null) {
                k = parallelism.get(input).equals(parallelism.get(consumer)) ? PartitionKind.FORWARD : PartitionKind.REBALANCE;
            }
            edges.add(new PhysicalEdge(input, consumer, k, keySelector, side));
        }
    }
}
