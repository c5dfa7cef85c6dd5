package io.sluice.core.serialization;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The classes that Sluice moved to another package, for data written by Java serialization before
 * they moved: job graphs in the HA store (operators hold {@code OutputTag}s), job results in the HA
 * job result store, serializers recorded by Java serialization in keyed-state snapshots.
 * {@link LegacySerializerObjectInputStream} resolves old names through {@link #currentName}.
 *
 * <p>A move changes more than a name: the default {@code serialVersionUID} of a class that declares
 * none is a hash of its name and of the signatures of its members, so a class whose constructor or
 * method names a moved type (Sluice's {@code WindowOperator} takes an {@code OutputTag}, a user
 * serializer of {@code Tuple2}s) gets another version id although its serialized form is the same.
 * {@link #sameVersionBeforeTheMoves} recomputes the id with the old names to recognise that case.
 *
 * <p>An entry stays for as long as such data may exist; never remove one. Stateless and thread-safe.
 */
public final class MovedClasses {
    private static final Map<String, String> CURRENT_NAMES = Map.ofEntries(
            Map.entry("io.sluice.api.Tuple2", "io.sluice.api.tuple.Tuple2"),
            // renamed, not moved: its name now says its guarantee (job graphs stored by earlier builds hold it)
            Map.entry("io.sluice.api.sink.FileSink", "io.sluice.api.sink.AtLeastOnceFileSink"),
            Map.entry("io.sluice.api.Tuple3", "io.sluice.api.tuple.Tuple3"),
            Map.entry("io.sluice.api.OutputTag", "io.sluice.api.functions.OutputTag"),
            Map.entry("io.sluice.graph.InvalidJobException", "io.sluice.api.errors.InvalidJobException"),
            Map.entry("io.sluice.api.UnrecoverableJobException", "io.sluice.api.errors.UnrecoverableJobException"),
            Map.entry("io.sluice.api.NullKeyException", "io.sluice.api.errors.NullKeyException"),
            Map.entry("io.sluice.api.StateKindConflictException", "io.sluice.api.errors.StateKindConflictException"),
            Map.entry("io.sluice.api.KeyedStateUnavailableException", "io.sluice.api.errors.KeyedStateUnavailableException"),
            Map.entry("io.sluice.api.MissingSerializerException", "io.sluice.core.serialization.MissingSerializerException"),
            Map.entry("io.sluice.jobmaster.JobStatus", "io.sluice.job.JobStatus"),
            Map.entry("io.sluice.jobmaster.JobResult", "io.sluice.job.JobResult"),
            Map.entry("io.sluice.taskexecutor.ExecutionAttemptId", "io.sluice.job.ExecutionAttemptId"),
            Map.entry("io.sluice.taskexecutor.ExecutionState", "io.sluice.job.ExecutionState"),
            Map.entry("io.sluice.jobmaster.JobMasterGateway", "io.sluice.protocol.JobMasterGateway"),
            Map.entry("io.sluice.jobmaster.JobDetails", "io.sluice.protocol.JobDetails"),
            Map.entry("io.sluice.jobmaster.JobStatusTransition", "io.sluice.protocol.JobStatusTransition"),
            Map.entry("io.sluice.jobmaster.VertexStatus", "io.sluice.protocol.VertexStatus"),
            Map.entry("io.sluice.jobmaster.SubtaskStatus", "io.sluice.protocol.SubtaskStatus"),
            Map.entry("io.sluice.jobmaster.RecoveryStatus", "io.sluice.protocol.RecoveryStatus"),
            Map.entry("io.sluice.jobmaster.FailureEvent", "io.sluice.protocol.FailureEvent"),
            Map.entry("io.sluice.taskexecutor.TaskExecutorGateway", "io.sluice.protocol.TaskExecutorGateway"),
            Map.entry("io.sluice.taskexecutor.TaskDeploymentDescriptor", "io.sluice.protocol.TaskDeploymentDescriptor"),
            Map.entry("io.sluice.taskexecutor.TaskRestore", "io.sluice.protocol.TaskRestore"),
            Map.entry("io.sluice.taskexecutor.TaskExecutionState", "io.sluice.protocol.TaskExecutionState"),
            Map.entry("io.sluice.taskexecutor.TaskMetrics", "io.sluice.protocol.TaskMetrics"),
            Map.entry("io.sluice.dispatcher.DispatcherGateway", "io.sluice.protocol.DispatcherGateway"),
            Map.entry("io.sluice.dispatcher.JobSummary", "io.sluice.protocol.JobSummary"),
            Map.entry("io.sluice.dispatcher.UnknownJobException", "io.sluice.protocol.UnknownJobException"),
            Map.entry("io.sluice.dispatcher.JobSubmissionException", "io.sluice.protocol.JobSubmissionException"),
            Map.entry("io.sluice.cluster.SlotPool", "io.sluice.slots.SlotPool"),
            Map.entry("io.sluice.cluster.TaskExecutorLostException", "io.sluice.slots.TaskExecutorLostException"),
            Map.entry("io.sluice.checkpoint.CheckpointCoordinator", "io.sluice.checkpoint.coordinator.CheckpointCoordinator"),
            Map.entry("io.sluice.checkpoint.PendingCheckpoint", "io.sluice.checkpoint.coordinator.PendingCheckpoint"),
            Map.entry("io.sluice.ha.HighAvailabilityServicesLoader", "io.sluice.ha.loader.HighAvailabilityServicesLoader"),
            Map.entry("io.sluice.metrics.JobMetrics", "io.sluice.metrics.job.JobMetrics"),
            Map.entry("io.sluice.metrics.JobStatusTimes", "io.sluice.metrics.job.JobStatusTimes"),
            Map.entry("io.sluice.checkpoint.RestoreCheckpointPin", "io.sluice.checkpoint.coordinator.RestoreCheckpointPin"));
    private static final Map<String, String> OLD_NAMES = new HashMap<>();

    static {
        CURRENT_NAMES.forEach((old, current) -> OLD_NAMES.put(current, old));
    }

    private MovedClasses() {}

    /** Today's name of the class written as {@code writtenName}: the same name unless it moved. */
    public static String currentName(String writtenName) {
        return rename(writtenName, CURRENT_NAMES);
    }

    /**
     * Whether {@code local}, which declares no {@code serialVersionUID}, had the default version id
     * {@code writtenId} before the moves: its name and member signatures hashed as the Java
     * serialization specification (section 4.6) does, with the moved classes under their old names.
     * Tries both with and without a static initializer, which reflection cannot see.
     */
    /**
     * Version ids that earlier builds wrote for classes that now declare theirs, with the same serialized fields:
     * their default id changed only because methods were added (the operators that say when they next need
     * processing time) or, before that, because classes they name moved. Never remove an entry.
     */
    private static final Map<String, java.util.Set<Long>> EARLIER_IDS = Map.of(
            // before OutputTag moved (job graphs of commit 858f2ac; the pinned id is the one of 11c2370)
            "io.sluice.operators.windowing.WindowOperator", java.util.Set.of(-4425849280466130925L));

    /** Whether {@code writtenId} is an id an earlier build wrote for {@code local}, whose fields are the same today. */
    public static boolean writtenByAnEarlierVersion(Class<?> local, long writtenId) {
        return EARLIER_IDS.getOrDefault(local.getName(), java.util.Set.of()).contains(writtenId);
    }

    public static boolean sameVersionBeforeTheMoves(Class<?> local, long writtenId) {
        if (declaresField(local, "serialVersionUID")) {
            return false; // a declared id is the class's own statement: never second-guessed
        }
        return defaultId(local, false) == writtenId || defaultId(local, true) == writtenId;
    }

    private static boolean declaresField(Class<?> type, String name) {
        return Arrays.stream(type.getDeclaredFields()).anyMatch(field -> field.getName().equals(name));
    }

    private static long defaultId(Class<?> type, boolean staticInitializer) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(oldName(type.getName()));
            Method[] methods = type.getDeclaredMethods();
            int classModifiers = type.getModifiers()
                    & (Modifier.PUBLIC | Modifier.FINAL | Modifier.INTERFACE | Modifier.ABSTRACT);
            if ((classModifiers & Modifier.INTERFACE) != 0) {
                classModifiers = methods.length > 0 ? classModifiers | Modifier.ABSTRACT : classModifiers & ~Modifier.ABSTRACT;
            }
            out.writeInt(classModifiers);
            String[] interfaces = Arrays.stream(type.getInterfaces()).map(i -> oldName(i.getName())).sorted()
                    .toArray(String[]::new);
            for (String name : interfaces) {
                out.writeUTF(name);
            }
            Field[] fields = type.getDeclaredFields();
            Arrays.sort(fields, Comparator.comparing(Field::getName));
            for (Field f : fields) {
                int m = f.getModifiers() & (Modifier.PUBLIC | Modifier.PRIVATE | Modifier.PROTECTED | Modifier.STATIC
                        | Modifier.FINAL | Modifier.VOLATILE | Modifier.TRANSIENT);
                if ((m & Modifier.PRIVATE) == 0 || (m & (Modifier.STATIC | Modifier.TRANSIENT)) == 0) {
                    out.writeUTF(f.getName());
                    out.writeInt(m);
                    out.writeUTF(descriptor(f.getType()));
                }
            }
            if (staticInitializer) {
                out.writeUTF("<clinit>");
                out.writeInt(Modifier.STATIC);
                out.writeUTF("()V");
            }
            int memberMask = Modifier.PUBLIC | Modifier.PRIVATE | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
                    | Modifier.SYNCHRONIZED | Modifier.NATIVE | Modifier.ABSTRACT | Modifier.STRICT;
            List<Constructor<?>> constructors = Arrays.stream(type.getDeclaredConstructors())
                    .sorted(Comparator.comparing(c -> descriptor(c.getParameterTypes(), void.class))).toList();
            for (Constructor<?> c : constructors) {
                int m = c.getModifiers() & memberMask;
                if ((m & Modifier.PRIVATE) == 0) {
                    out.writeUTF("<init>");
                    out.writeInt(m);
                    out.writeUTF(descriptor(c.getParameterTypes(), void.class).replace('/', '.'));
                }
            }
            Arrays.sort(methods, Comparator.comparing(Method::getName)
                    .thenComparing(m -> descriptor(m.getParameterTypes(), m.getReturnType())));
            for (Method method : methods) {
                int m = method.getModifiers() & memberMask;
                if ((m & Modifier.PRIVATE) == 0) {
                    out.writeUTF(method.getName());
                    out.writeInt(m);
                    out.writeUTF(descriptor(method.getParameterTypes(), method.getReturnType()).replace('/', '.'));
                }
            }
            out.flush();
            byte[] hash = MessageDigest.getInstance("SHA").digest(bytes.toByteArray());
            long id = 0;
            for (int i = Math.min(hash.length, 8) - 1; i >= 0; i--) {
                id = (id << 8) | (hash[i] & 0xFF);
            }
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("The JVM has no SHA digest, which Java serialization needs", e);
        }
    }

    private static String oldName(String name) {
        return rename(name, OLD_NAMES);
    }

    /** {@code name} renamed by {@code names}, nested classes ({@code Outer$Inner}) with their outer class. */
    private static String rename(String name, Map<String, String> names) {
        int nested = name.indexOf('$');
        String outer = nested < 0 ? name : name.substring(0, nested);
        String renamed = names.get(outer);
        return renamed == null ? name : renamed + name.substring(outer.length());
    }

    private static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder s = new StringBuilder("(");
        for (Class<?> p : parameters) {
            s.append(descriptor(p));
        }
        return s.append(')').append(descriptor(result)).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return "[" + descriptor(type.getComponentType());
        }
        if (type.isPrimitive()) {
            return switch (type.getName()) {
                case "int" -> "I";
                case "byte" -> "B";
                case "long" -> "J";
                case "float" -> "F";
                case "double" -> "D";
                case "short" -> "S";
                case "char" -> "C";
                case "boolean" -> "Z";
                default -> "V";
            };
        }
        return "L" + oldName(type.getName()).replace('.', '/') + ";";
    }
}
