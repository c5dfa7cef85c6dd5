package io.sluice.compare.driver;

import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.driver.Comparison.Key;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.sluice.compare.driver.ComparisonTest.parsed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ChartTest {

    /** Every scenario of the full plan for every system, as the fake harness writes it. */
    static Comparison full() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        for (String s : ReportTest.SYSTEMS) {
            Results r = new Results(s);
            for (Scenario sc : Scenario.values()) {
                FakeHarness.add(r, Plan.full(), sc, FakeHarness.factor(s));
            }
            files.put(s, new Results.Parsed(Map.of("system", s), r.rows()));
        }
        return Comparison.of(ReportTest.SYSTEMS, files);
    }

    static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void headlineFiguresInOrder() {
        Plan p = Plan.full();
        List<Key> keys = Chart.headlineKeys(full());
        // 4 status variants, 2x2 task failover, 3x2 jm failover, 1 throughput, 1 checkpoint duration, 2 windows
        assertThat(keys).hasSize(4 + 4 + 6 + 1 + 1 + 2);
        assertThat(keys.get(0)).isEqualTo(new Key("status-during-stall", p.statusTaskFailoverStalled(), "p99_ms"));
        assertThat(keys.get(4)).isEqualTo(new Key("task-failover", "N=1, D=0 ms", "to_running_ms"));
        assertThat(keys.get(8)).isEqualTo(new Key("jm-failover", "N=1, D=50 ms", "to_running_ms"));
        assertThat(keys.get(14).metric()).isEqualTo("records_per_s");
        assertThat(keys.get(15).metric()).isEqualTo("duration_p50_ms");
        assertThat(keys.get(16)).isEqualTo(new Key("window-tumbling", p.windowVariant(), "records_per_s"));
        assertThat(keys.get(17)).isEqualTo(new Key("window-session", p.windowVariant(), "records_per_s"));
    }

    @Test
    void wellFormedSvgWithOneBarPerFlinkVersionPerFigure() throws Exception {
        String svg = Chart.svg(full());
        Document doc = parse(svg);
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        NodeList rects = doc.getElementsByTagName("rect");
        int bars = 0;
        for (int i = 0; i < rects.getLength(); i++) {
            if (((Element) rects.item(i)).getElementsByTagName("title").getLength() == 1) {
                bars++;
            }
        }
        assertThat(bars).isEqualTo(18 * 3);
        assertThat(svg).contains("Sluice ÷ flink-1.13.6").contains("Sluice ÷ flink-1.14.6")
                .contains("Sluice ÷ flink-1.20.5").contains("side where Sluice is better")
                .contains(">0.001x<").contains(">1x<").contains(">1,000x<")
                .contains("lower is better").contains("higher is better").doesNotContain("Sluice behind");
    }

    @Test
    void missingValuesAreNamedNotDrawnAndTextIsEscaped() throws Exception {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", Map.of(), "task-failover", "N=1, D=<0> & \"ms\"", "to_running_ms", 5));
        files.put("flink-1.13.6", parsed("flink-1.13.6", Map.of(), "task-failover", "N=1, D=<0> & \"ms\"",
                "to_running_ms", 0));
        String svg = Chart.svg(Comparison.of(List.of("sluice", "flink-1.13.6", "flink-1.20.5"), files));
        parse(svg);
        assertThat(svg).contains("flink-1.13.6: —").contains("flink-1.20.5: missing")
                .contains("N=1, D=&lt;0&gt; &amp; &quot;ms&quot;").doesNotContain("<title>");
    }

    @Test
    void ratiosWhereSluiceIsBehindAreMarked() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", Map.of(), "checkpoint-duration", "k", "duration_p50_ms", 120));
        files.put("flink-1.20.5", parsed("flink-1.20.5", Map.of(), "checkpoint-duration", "k", "duration_p50_ms", 85));
        String svg = Chart.svg(Comparison.of(List.of("sluice", "flink-1.20.5"), files));
        assertThat(svg).contains("fill=\"#c62828\" text-anchor=\"end\" font-weight=\"bold\">1.41x (Sluice behind)</text>");
    }

    @Test
    void emptyResultsStillRender() throws Exception {
        String svg = Chart.svg(Comparison.of(List.of("sluice"), Map.of()));
        parse(svg);
        assertThat(svg).contains("No headline figures");
    }

    @Test
    void axisTicks() {
        assertThat(Chart.tick(-3)).isEqualTo("0.001x");
        assertThat(Chart.tick(-1)).isEqualTo("0.1x");
        assertThat(Chart.tick(0)).isEqualTo("1x");
        assertThat(Chart.tick(3)).isEqualTo("1,000x");
    }

    @Test
    void logAxisIsClampedToAThousandEitherWay() {
        assertThat(Chart.x(1e-6)).isEqualTo(Chart.x(1e-3));
        assertThat(Chart.x(1e6)).isEqualTo(Chart.x(1e3));
        assertThat(Chart.x(0)).isEqualTo(Chart.x(1e-3));
        assertThat(Chart.x(1) - Chart.x(0.1)).isCloseTo(Chart.x(10) - Chart.x(1), within(1e-9));
    }

    @Test
    void sameInputSameSvg() {
        assertThat(Chart.svg(full())).isEqualTo(Chart.svg(full()));
    }

    @Test
    void wrapsLongVariantNames() {
        assertThat(Chart.wrap("task failover, ZooKeeper holds checkpoints memory lacks, D=200 ms, N=10", 30))
                .containsExactly("task failover, ZooKeeper holds", "checkpoints memory lacks,", "D=200 ms, N=10");
        assertThat(Chart.wrap("averyveryverylongword x", 5)).containsExactly("averyveryverylongword", "x");
    }
}
