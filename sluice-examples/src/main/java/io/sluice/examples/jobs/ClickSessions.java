package io.sluice.examples.jobs;

import io.sluice.api.functions.OutputTag;
import io.sluice.api.SingleOutputStreamOperator;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.eventtime.TimestampAssigner;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.FilterFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.core.serialization.Serializers;
import java.time.Duration;
import java.util.Set;

/**
 * Session windows over a click stream file. Each line of {@code --input FILE} is
 * {@code timestampMillis,user,url} (blank lines and lines starting with {@code #} are skipped); clicks
 * may be out of order by up to {@code --disorder} (default 5 s). A user's clicks less than
 * {@code --gap} apart (default 30 min) form one session; the job writes one line per session,
 * {@code user,sessionStart,sessionEnd,clicks,firstUrl}, to part files under {@code --output DIR}, and
 * clicks that came too late for their session to {@code DIR-late}. At the end of the file the final
 * watermark closes every open session.
 *
 * <pre>
 *   sluice run sluice-examples/target/sluice-examples.jar --class io.sluice.examples.jobs.ClickSessions -- \
 *       --input docs/examples/clicks.csv --output sessions --gap 5s
 *   java -cp sluice-examples.jar:sluice.jar io.sluice.examples.jobs.ClickSessions --input clicks.csv --output sessions
 * </pre>
 * See docs/event-time.md.
 */
public final class ClickSessions {
    private ClickSessions() {}

    /** The clicks later than the allowed lateness (zero here: later than the watermark of their session's end). */
    public static final OutputTag<Click> LATE = OutputTag.of("late clicks");

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of("input", "output", "gap", "disorder"));
        String input = args.required("input");
        String output = args.required("output");
        Duration gap = args.getDuration("gap", Duration.ofMinutes(30));
        Duration disorder = args.getDuration("disorder", Duration.ofSeconds(5));
        if (gap.isZero() || gap.isNegative()) {
            throw new IllegalArgumentException("--gap must be longer than zero, e.g. 5s or 30min; got " + gap);
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        SingleOutputStreamOperator<String> sessions = env.readTextFile(input)
                .filter(new IsClickLine()).name("skip comments")
                .map(new ParseClick()).name("parse clicks")
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Click>forBoundedOutOfOrderness(disorder)
                        .withTimestampAssigner(new ClickTime()))
                .keyBy(new User())
                .window(WindowAssigner.sessionEventTime(gap))
                .sideOutputLateData(LATE)
                .process(new DescribeSession());
        sessions.returns(Serializers.STRING).writeAsTextAtLeastOnce(output);
        sessions.getSideOutput(LATE).map(new ClickLine()).returns(Serializers.STRING).writeAsTextAtLeastOnce(output + "-late");
        env.execute("click sessions of " + input + " (gap " + gap + ")");
    }

    /** One click. */
    public record Click(long timeMillis, String user, String url) {
        /** Parses {@code timestampMillis,user,url}, saying which line is wrong. */
        public static Click parse(String line) {
            String[] f = line.split(",", 3);
            try {
                if (f.length == 3) {
                    return new Click(Long.parseLong(f[0].trim()), f[1].trim(), f[2].trim());
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("A click line is 'timestampMillis,user,url', not '" + line + "'");
        }
    }

    /** The click's own time is its event time. */
    public static final class ClickTime implements TimestampAssigner<Click> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Click click, long previousTimestamp) {
            return click.timeMillis();
        }
    }

    /** Not blank, not a {@code #} comment. */
    public static final class IsClickLine implements FilterFunction<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean filter(String line) {
            return !line.isBlank() && !line.startsWith("#");
        }
    }

    /** {@link Click#parse}. */
    public static final class ParseClick implements MapFunction<String, Click> {
        private static final long serialVersionUID = 1L;

        @Override
        public Click map(String line) {
            return Click.parse(line);
        }
    }

    /** The click's user. */
    public static final class User implements KeySelector<Click, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(Click click) {
            return click.user();
        }
    }

    /** A late click as its input line. */
    public static final class ClickLine implements MapFunction<Click, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Click click) {
            return click.timeMillis() + "," + click.user() + "," + click.url();
        }
    }

    /** {@code user,sessionStart,sessionEnd,clicks,firstUrl}. */
    public static final class DescribeSession extends ProcessWindowFunction<Click, String, String> {
        private static final long serialVersionUID = 1L;

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
}
