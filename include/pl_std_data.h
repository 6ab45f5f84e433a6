/* Licensed under the Apache License, Version 2.0.
 *
 * pl_std_data.h: the standard resource classes and traits, as facts.
 * The arrays are generated at build time by scripts/gen-std-data.sh --c
 * from sql/resource_classes.txt and sql/traits.txt, which that script
 * makes from os-resource-classes' and os-traits' source (the first line of
 * each file names the release and commit). Standard traits newer than
 * the build are added with PlacementStandardTraitsFile (store_std.c).
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

/** Where pl_std_traits comes from, as "os-traits 3.9.0". */
extern const char pl_std_traits_source[];

#endif /* PL_STD_DATA_H */
