package io.etcdrunbooks.activities.etcd;

class Etcd35ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.5.30";
  }
}
