package io.etcdrunbooks.activities.etcd;

class Etcd34ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.4.23";
  }
}
