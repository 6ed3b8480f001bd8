package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Ports for sandbox members on 127.0.0.1, below Linux's ephemeral range (32768 and up: a port the
 * kernel hands out for ServerSocket(0) can be taken by any outgoing connection before etcd binds
 * it). A port is free only when nothing listens on it and no other sandbox, in this JVM or another
 * (parallel test JVMs, a demo next to a build), holds its lock file: probing alone left a window in
 * which two sandboxes picked the same port and one etcd failed with "address already in use". The
 * locks are held until {@link #close()}, and the OS drops them when a JVM dies.
 */
final class PortReservations implements AutoCloseable {

  private static final int RANGE_START = 20000;
  private static final int RANGE_SIZE = 12000;
  // not under java.io.tmpdir: test JVMs may be given another one (test.sh puts them on tmpfs), and
  // a demo's sandbox beside them must still see their locks
  private static final Path LOCKS = Path.of("/tmp", "etcd-runbooks-sandbox-ports");

  private final List<FileLock> held = new ArrayList<>();
  private final Random random = new Random();

  synchronized List<Integer> reserve(int count) throws IOException {
    Files.createDirectories(LOCKS);
    List<Integer> ports = new ArrayList<>();
    for (int attempt = 0; ports.size() < count && attempt < 1000; attempt++) {
      int port = RANGE_START + random.nextInt(RANGE_SIZE);
      if (ports.contains(port) || !listenable(port)) continue;
      FileLock lock = tryLock(port);
      if (lock == null) continue;
      held.add(lock);
      ports.add(port);
    }
    if (ports.size() < count) {
      throw new IOException(
          "no %d free ports between %d and %d"
              .formatted(count, RANGE_START, RANGE_START + RANGE_SIZE));
    }
    return ports;
  }

  private static boolean listenable(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
      return true;
    } catch (IOException inUse) {
      return false;
    }
  }

  private static FileLock tryLock(int port) throws IOException {
    FileChannel channel;
    try {
      channel =
          FileChannel.open(
              LOCKS.resolve(String.valueOf(port)),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE);
    } catch (java.nio.file.AccessDeniedException anotherUsersLock) {
      return null; // another user's sandbox used this port: pick another
    }
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) channel.close();
      return lock;
    } catch (OverlappingFileLockException heldInThisJvm) {
      channel.close();
      return null;
    }
  }

  @Override
  public synchronized void close() {
    for (FileLock lock : held) {
      try {
        lock.channel().close();
      } catch (IOException e) {
        // the lock goes with the channel either way
      }
    }
    held.clear();
  }
}
