package io.sluice.examples.jobs;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.connector.kafka.KafkaSink;
import io.sluice.connector.kafka.KafkaSource;
import io.sluice.connector.kafka.StartingOffsets;
import io.sluice.connector.kafka.format.DeserializationErrorPolicy;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.Serializers;
import java.time.Duration;
import java.util.Set;

/**
 * Kafka → sessions per user → Kafka, exactly once. Reads click lines {@code timestampMillis,user,url} from
 * {@code --input} (a topic), groups each user's clicks into event-time sessions (clicks less than
 * {@code --gap} apart, default 30 min; event time is the Kafka record's timestamp, with per-partition
 * watermarks that allow {@code --disorder} of disorder, default 5 s, and ignore partitions silent for 1 min),
 * and writes one line per session, {@code user,sessionStart,sessionEnd,clicks,firstUrl}, to {@code --output}
 * (a topic), visible to {@code read_committed} consumers when the checkpoint covering it completes (every
 * {@code --checkpoint-interval}, default 10 s). Lines that are not clicks are skipped and counted. Both
 * topics must exist. Works against any Kafka 2.5+ cluster. {@code --output-bootstrap} (default: {@code --bootstrap})
 * writes the sessions to another cluster, or to the same one through other listeners.
 *
 * <p>Build and run it against a broker at localhost:9092 (the jar with the Kafka connector inside is
 * {@code sluice-examples-kafka.jar}):
 * <pre>
 *   mvn -q -pl sluice-examples -am package -DskipTests
 *   ./sluice cluster &amp;
 *   ./sluice run sluice-examples/target/sluice-examples-kafka.jar --class io.sluice.examples.jobs.KafkaClickSessions -- \
 *       --bootstrap localhost:9092 --input clicks --output sessions --gap 5s --prefix click-sessions
 *   # or on an embedded local cluster:
 *   java -cp sluice-examples/target/sluice-examples-kafka.jar:sluice-dist/target/sluice.jar \
 *       io.sluice.examples.jobs.KafkaClickSessions --bootstrap localhost:9092 --input clicks --output sessions
 * </pre>
 * {@code --prefix} (default {@code click-sessions}) is the sink's transactional-id prefix: unique per job,
 * the same across restarts. See docs/kafka.md.
 */
public final class KafkaClickSessions {
    private KafkaClickSessions() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of("bootstrap", "output-bootstrap", "input", "output", "gap", "disorder",
                "prefix", "group", "checkpoint-interval"));
        String bootstrap = args.required("bootstrap");
        String outputBootstrap = args.get("output-bootstrap", bootstrap);
        String input = args.required("input");
        String output = args.required("output");
        Duration gap = args.getDuration("gap", Duration.ofMinutes(30));
        Duration disorder = args.getDuration("disorder", Duration.ofSeconds(5));
        Duration interval = args.getDuration("checkpoint-interval", Duration.ofSeconds(10));
        String prefix = args.get("prefix", "click-sessions");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().enableCheckpointing(interval);
        KafkaSource<String> clicks = KafkaSource.<String>builder().bootstrapServers(bootstrap).topics(input)
                .groupId(args.get("group", prefix)).startingOffsets(StartingOffsets.earliest())
                .valueFormat(Formats.strings()).serializer(Serializers.STRING)
                .deserializationErrors(DeserializationErrorPolicy.skip())
                .watermarks(disorder, Duration.ofMinutes(1)).build();
        KafkaSink<String> sessions = KafkaSink.<String>builder().bootstrapServers(outputBootstrap).topic(output)
                .valueFormat(Formats.strings()).key(line -> line.substring(0, line.indexOf(',')).getBytes(
                        java.nio.charset.StandardCharsets.UTF_8))
                .transactionalIdPrefix(prefix).build();

        env.fromSource(clicks, "clicks from " + input)
                .filter(new ClickSessions.IsClickLine()).name("skip comments")
                .map(new ClickSessions.ParseClick()).name("parse clicks")
                .keyBy(new ClickSessions.User())
                .window(WindowAssigner.sessionEventTime(gap))
                .process(new ClickSessions.DescribeSession()).returns(Serializers.STRING)
                .sinkTo(sessions, "sessions to " + output);
        env.execute("click sessions from Kafka " + input + " to " + output + " (gap " + gap + ")");
    }
}
