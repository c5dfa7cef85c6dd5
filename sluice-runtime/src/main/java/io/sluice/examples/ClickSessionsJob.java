package io.sluice.examples;

import io.sluice.api.OutputTag;
import io.sluice.api.SingleOutputStreamOperator;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.jobmaster.JobResult;
import java.time.Duration;

/**
 * Session windows over a click stream file: each line is {@code timestampMillis,user,url}; clicks of
 * a user less than {@code gap} apart form one session; the job writes one line per session,
 * {@code user,sessionStart,sessionEnd,clicks,firstUrl}, into {@code output/part-<subtask>}, and clicks
 * later than the allowed lateness into {@code output-late}. Clicks may be out of order by up to
 * {@code disorder}.
 *
 * <pre>{@code
 * java -cp sluice.jar io.sluice.examples.ClickSessionsJob clicks.csv out [gap-seconds]
 * }</pre>
 * See docs/event-time.md.
 */
public final class ClickSessionsJob {
    private ClickSessionsJob() {}

    /** One click. */
    public record Click(long timeMillis, String user, String url) {
        /** Parses {@code timestampMillis,user,url}, saying which line is wrong. */
        public static Click parse(String line) {
            String[] f = line.split(",", 3);
            if (f.length != 3) {
                throw new IllegalArgumentException("A click line is 'timestampMillis,user,url', not '" + line + "'");
            }
            return new Click(Long.parseLong(f[0].trim()), f[1].trim(), f[2].trim());
        }
    }

    /** The clicks later than the allowed lateness. */
    public static final OutputTag<Click> LATE = OutputTag.of("late clicks");

    /** Adds the job to {@code env}. */
    public static void build(StreamExecutionEnvironment env, String clicksFile, String outputDir, Duration gap,
                             Duration disorder, Duration allowedLateness) {
        SingleOutputStreamOperator<String> sessions = env.readTextFile(clicksFile)
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(Click::parse)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Click>forBoundedOutOfOrderness(disorder)
                        .withTimestampAssigner((click, previous) -> click.timeMillis()))
                .keyBy(Click::user)
                .window(WindowAssigner.sessionEventTime(gap))
                .allowedLateness(allowedLateness)
                .sideOutputLateData(LATE)
                .process(new DescribeSession());
        sessions.returns(Serializers.STRING).writeAsText(outputDir);
        sessions.getSideOutput(LATE).map(Click::toString).writeAsText(outputDir + "-late");
    }

    /** {@code user,sessionStart,sessionEnd,clicks,firstUrl}. */
    static final class DescribeSession extends ProcessWindowFunction<Click, String, String> {
        @Override
        public void process(String user, Context context, Iterable<Click> clicks, Collector<String> out) {
            int n = 0;
            Click first = null;
            for (Click c : clicks) {
                n++;
                if (first == null || c.timeMillis() < first.timeMillis()) {
                    first = c;
                }
            }
            out.collect(user + "," + context.window().start() + "," + context.window().end() + "," + n + ","
                    + (first == null ? "" : first.url()));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("Usage: ClickSessionsJob <clicks.csv> <output-dir> [gap-seconds]");
            System.exit(2);
        }
        Duration gap = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 30 * 60);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        build(env, args[0], args[1], gap, Duration.ofSeconds(5), Duration.ZERO);
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            JobResult result = cluster.executeAndWait(env.buildJobGraph("click sessions"), Duration.ofHours(1));
            System.out.println("click sessions: " + result.status()
                    + (result.failureMessage() == null ? "" : " (" + result.failureMessage() + ")"));
        }
    }
}
