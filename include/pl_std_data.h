/* Licensed under the Apache License, Version 2.0.
 *
 * pl_std_data.h: the standard resource classes and traits, as facts.
 * The arrays are generated at build time by scripts/gen-std-data.sh --c
 * from sql/resource_classes.txt (os-resource-classes 1.1.0) and
 * sql/traits.txt (os-traits 2.9.0); regenerate those two files with
 * scripts/gen-std-data.sh when the upstream libraries change.
 */
#ifndef PL_STD_DATA_H
#define PL_STD_DATA_H

/** Standard resource class names; the index is the database id
 *  (VCPU = 0, MEMORY_MB = 1, ...).  Custom classes start at 10000. */
extern const char *const pl_std_resource_classes[];
extern const int pl_std_resource_classes_n;

/** Standard trait names, sorted (byte order).  Their ids are assigned
 *  by the database on insert, so only the names are facts. */
extern const char *const pl_std_traits[];
extern const int pl_std_traits_n;

#endif /* PL_STD_DATA_H */
