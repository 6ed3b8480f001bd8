package io.etcdrunbooks.activities.etcd;

class Etcd33ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.3.25";
  }
}
