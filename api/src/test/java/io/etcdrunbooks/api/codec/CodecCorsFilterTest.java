package io.etcdrunbooks.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * runbooks.codec.cors-origins: exact origins only (the preflight itself is exercised by
 * PayloadEncryptionTest).
 */
class CodecCorsFilterTest {

  @Test
  void corsOriginsAreExactOriginsAsBrowsersSendThem() {
    assertThat(
            CodecCorsFilter.parse(
                List.of("https://Temporal.example.com/, http://localhost:8233", "")))
        .containsExactlyInAnyOrder("https://temporal.example.com", "http://localhost:8233");
    assertThat(CodecCorsFilter.parse(List.of())).isEmpty();
    assertThat(CodecCorsFilter.parse(null)).isEmpty();
  }

  @Test
  void aWildcardOrAUrlWithAPathIsRefused() {
    assertThatThrownBy(() -> CodecCorsFilter.parse(List.of("*")))
        .hasMessageContaining("'*' is not an origin");
    assertThatThrownBy(() -> CodecCorsFilter.parse(List.of("https://ui.example/namespaces")))
        .hasMessageContaining(
            "runbooks.codec.cors-origins: 'https://ui.example/namespaces' is not an origin");
  }
}
