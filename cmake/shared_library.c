/*
** libhydae.so: the static library's objects linked whole, of which
** include/hydae.h's functions alone are exported (cmake/HydaeInstall.cmake).
** This unit only gives the target a source of its own.
*/
typedef int hydae_shared_library_unit;
