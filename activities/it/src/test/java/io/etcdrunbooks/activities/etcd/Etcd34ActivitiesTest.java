package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd34ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.4.23";
  }
}
