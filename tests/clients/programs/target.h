/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLIENTS_TARGET_H
#define CLIENTS_TARGET_H

int lib_work(int n);
int lib_twice(int n);
void target_tick(int i);
void target_tick5(int i);

#endif
