package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A streamed snapshot's trailer check and file SHA-256, whatever pieces the stream comes in. */
class SnapshotFileTest {

  @TempDir Path dir;

  @Test
  void aSnapshotEndingWithTheSha256OfItsPayloadMatchesAndHashesAsTheFileOnDisk() throws Exception {
    byte[] snapshot = snapshot(300_000, false);
    Path file = dir.resolve("s.db");
    boolean matches;
    byte[] sha;
    try (SnapshotFile sink = new SnapshotFile(file)) {
      writeInPieces(sink, snapshot);
      matches = sink.trailerMatches();
      sha = sink.fileSha256();
    }
    assertThat(matches).isTrue();
    assertThat(Files.readAllBytes(file)).isEqualTo(snapshot);
    assertThat(sha).isEqualTo(MessageDigest.getInstance("SHA-256").digest(snapshot));
  }

  @Test
  void aTrailerThatIsNotThePayloadsSha256DoesNotMatch() throws Exception {
    byte[] snapshot = snapshot(70_000, true);
    try (SnapshotFile sink = new SnapshotFile(dir.resolve("t.db"))) {
      writeInPieces(sink, snapshot);
      assertThat(sink.trailerMatches()).isFalse();
      assertThat(sink.fileSha256())
          .isEqualTo(MessageDigest.getInstance("SHA-256").digest(snapshot));
    }
  }

  /** Random payload and its SHA-256 as the trailer (one byte of it changed when tampered). */
  private static byte[] snapshot(int payloadBytes, boolean tampered) throws Exception {
    byte[] payload = new byte[payloadBytes];
    new Random(7).nextBytes(payload);
    byte[] trailer = MessageDigest.getInstance("SHA-256").digest(payload);
    if (tampered) trailer[5] ^= 1;
    byte[] snapshot = new byte[payloadBytes + trailer.length];
    System.arraycopy(payload, 0, snapshot, 0, payloadBytes);
    System.arraycopy(trailer, 0, snapshot, payloadBytes, trailer.length);
    return snapshot;
  }

  /** Pieces of varying size, the last ones shorter than the trailer, as gRPC may hand them. */
  private static void writeInPieces(SnapshotFile sink, byte[] bytes) throws Exception {
    int[] sizes = {32_768, 1, 31, 4_099, 65_536, 7};
    int at = 0;
    for (int i = 0; at < bytes.length; i++) {
      int n = Math.min(sizes[i % sizes.length], bytes.length - at);
      sink.write(bytes, at, n);
      at += n;
    }
  }
}
