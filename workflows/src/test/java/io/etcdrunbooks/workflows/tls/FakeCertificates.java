package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.testing.UnsupportedTlsActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Certificate files on members' hosts, in memory: what each member serves, the files put in place
 * and put back. Faults are injected by member.
 */
final class FakeCertificates implements UnsupportedTlsActivities {

  private final Map<String, String> served = new LinkedHashMap<>();
  private final List<String> putBack = new ArrayList<>();
  private final List<String> issuedWith = new ArrayList<>();
  private final List<String> renewed = new ArrayList<>();
  private List<String> problems = List.of();
  private String neverServes = "";
  private List<PresentedCertificate> others = List.of();

  FakeCertificates(List<String> members) {
    members.forEach(m -> served.put(m, "old-" + m));
  }

  synchronized FakeCertificates checkFinds(String... found) {
    problems = List.of(found);
    return this;
  }

  /** Certificates besides the members' serving ones, as kubeadm lays them out. */
  synchronized FakeCertificates alsoPresented(PresentedCertificate... found) {
    others = List.of(found);
    return this;
  }

  /** The member keeps serving its old certificate after its files were replaced. */
  synchronized FakeCertificates neverServesTheNewOne(String member) {
    neverServes = member;
    return this;
  }

  synchronized Map<String, String> served() {
    return Map.copyOf(served);
  }

  /** "caKeyFile:validityDays" of every install that issued its certificate. */
  synchronized List<String> issuedWith() {
    return List.copyOf(issuedWith);
  }

  synchronized List<String> putBack() {
    return List.copyOf(putBack);
  }

  @Override
  public synchronized List<String> checkCertificates(CheckCertificatesRequest request) {
    return problems;
  }

  @Override
  public synchronized String installCertificate(InstallCertificateRequest request) {
    if (request.caKeyFile() != null) {
      issuedWith.add(request.caKeyFile() + ":" + request.validityDays());
    }
    if (!request.member().equals(neverServes))
      served.put(request.member(), "new-" + request.member());
    return "new-" + request.member();
  }

  @Override
  public synchronized boolean putCertificateBack(InstallCertificateRequest request) {
    putBack.add(request.member());
    served.put(request.member(), "old-" + request.member());
    return true;
  }

  @Override
  public synchronized void awaitServedCertificate(AwaitCertificateRequest request) {
    if (!request.fingerprint().equals(served.get(request.member()))) {
      throw ApplicationFailure.newNonRetryableFailure(
          "member " + request.member() + " serves " + served.get(request.member()),
          "CertificateNotServed");
    }
  }

  @Override
  public synchronized String renewCertificateFile(RenewCertificateFileRequest request) {
    renewed.add(request.host() + ":" + request.certFile());
    return "renewed-" + request.certFile();
  }

  @Override
  public synchronized boolean putCertificateFileBack(RenewCertificateFileRequest request) {
    putBack.add(request.host() + ":" + request.certFile());
    return true;
  }

  @Override
  public void awaitServedPeerCertificate(AwaitCertificateRequest request) {}

  /** "host:file" of every certificate renewed besides the serving ones, in order. */
  synchronized List<String> renewed() {
    return List.copyOf(renewed);
  }

  @Override
  public synchronized List<PresentedCertificate> otherCertificates(
      OtherCertificatesRequest request) {
    return others;
  }
}
