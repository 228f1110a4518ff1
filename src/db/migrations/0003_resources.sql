-- The generic store behind /apis: one row per object (its envelope and spec
-- as JSON) and one history row per version. resource_version comes from one
-- sequence, so it increases across all objects, as in Kubernetes.
create sequence resource_version_seq;

create table resources (
  id bigserial primary key,
  api_group text not null,
  resource text not null,
  namespace text not null,
  name text not null,
  resource_version bigint not null,
  -- {metadata, spec, status} without kind and apiVersion, which depend on the version asked for
  object jsonb not null,
  unique (api_group, resource, namespace, name)
);

create table resource_history (
  api_group text not null,
  resource text not null,
  namespace text not null,
  name text not null,
  resource_version bigint not null,
  object jsonb not null,
  primary key (api_group, resource, namespace, name, resource_version)
);
