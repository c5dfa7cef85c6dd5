package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BearerTokenCheckTest {
    private final BearerTokenCheck check = new BearerTokenCheck("s3cret");

    @Test
    void acceptsTheTokenAndRefusesEverythingElseWith401() {
        assertThatCode(() -> check.check("Bearer s3cret")).doesNotThrowAnyException();
        assertThatCode(() -> check.check("bearer s3cret")).doesNotThrowAnyException();
        for (String bad : new String[] {null, "", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret2", "Basic s3cret",
                "s3cret", "Bearer S3CRET"}) {
            assertThatThrownBy(() -> check.check(bad)).isInstanceOf(RestException.class)
                    .satisfies(e -> org.assertj.core.api.Assertions.assertThat(((RestException) e).status()).isEqualTo(401))
                    .message().doesNotContain("s3cret");
        }
    }

    @Test
    void withoutATokenEveryRequestPasses() {
        BearerTokenCheck none = new BearerTokenCheck(null);
        assertThatCode(() -> none.check(null)).doesNotThrowAnyException();
        assertThatCode(() -> none.check("Bearer whatever")).doesNotThrowAnyException();
    }
}
