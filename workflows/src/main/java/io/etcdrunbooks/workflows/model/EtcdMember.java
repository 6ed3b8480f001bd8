package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * One entry of etcd's own member list.
 *
 * @param id etcd member id
 * @param name member name; empty for a member added but not yet started
 * @param peerUrls advertised peer URLs
 * @param clientUrls advertised client URLs; empty until the member has started
 * @param learner a non-voting learner
 */
public record EtcdMember(
    long id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {

  public EtcdMember {
    peerUrls = List.copyOf(peerUrls);
    clientUrls = List.copyOf(clientUrls);
  }

  public boolean hasPeerUrl(String url) {
    return peerUrls.contains(url);
  }

  public String hexId() {
    return Long.toHexString(id);
  }
}
