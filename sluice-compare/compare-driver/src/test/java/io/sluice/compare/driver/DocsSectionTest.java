package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DocsSectionTest {

    @Test
    void replacesOnlyTheTextBetweenTheMarkers() {
        String doc = "# Benchmarks\n\n## Sluice and Apache Flink side by side\n\nHand-written.\n\n"
                + "<!-- comparison:begin -->\nold table\n<!-- comparison:end -->\n\nAfter.\n";
        assertThat(DocsSection.replace(doc, "new table\n")).isEqualTo("# Benchmarks\n\n## Sluice and Apache Flink"
                + " side by side\n\nHand-written.\n\n<!-- comparison:begin -->\nnew table\n<!-- comparison:end -->"
                + "\n\nAfter.\n");
        assertThat(DocsSection.replace(DocsSection.replace(doc, "x"), "x")).isEqualTo(DocsSection.replace(doc, "x"));
    }

    @Test
    void addsTheSectionAfterTheTitleWhenTheMarkersAreMissing() {
        String doc = "# Benchmarks\n\n## Throughput\n\ntext\n";
        String out = DocsSection.replace(doc, "table\n");
        assertThat(out).startsWith("# Benchmarks\n\n## Sluice and Apache Flink side by side\n\n");
        assertThat(out).contains("<!-- comparison:begin -->\ntable\n<!-- comparison:end -->\n\n## Throughput\n\ntext\n");
        assertThat(DocsSection.replace("no title\n", "t")).startsWith("## Sluice and Apache Flink side by side")
                .endsWith("no title\n");
    }

    @Test
    void refusesBrokenMarkers() {
        assertThatThrownBy(() -> DocsSection.replace("<!-- comparison:begin -->\n", "t"))
                .hasMessageContaining("once").hasMessageContaining("Fix the markers by hand");
        assertThatThrownBy(() -> DocsSection.replace("<!-- comparison:end -->\n<!-- comparison:begin -->\n", "t"))
                .hasMessageContaining("wrong order");
        assertThatThrownBy(() -> DocsSection.replace("<!-- comparison:begin --><!-- comparison:end -->"
                + "<!-- comparison:begin --><!-- comparison:end -->", "t")).hasMessageContaining("it has 2 and 2");
    }

    @Test
    void writesTheSectionAndTheChart(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/benchmarks.md"), "# Benchmarks\n");
        DocsSection.write(root, "generated\n", "<svg/>\n");
        assertThat(Files.readString(root.resolve("docs/benchmarks.md"))).contains("<!-- comparison:begin -->\n"
                + "generated\n<!-- comparison:end -->");
        assertThat(Files.readString(root.resolve("docs/img/comparison.svg"))).isEqualTo("<svg/>\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("docs/img/comparison.svg"))))
                .isEqualTo("rw-r--r--");
        Files.setPosixFilePermissions(root.resolve("docs/benchmarks.md"), PosixFilePermissions.fromString("rw-rw-r--"));
        DocsSection.write(root, "again\n", "<svg/>\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("docs/benchmarks.md"))))
                .isEqualTo("rw-rw-r--");
        try (var files = Files.list(root.resolve("docs"))) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("benchmarks.md", "img");
        }
    }
}
