// The classic Snakes and Ladders board of `kolmo snakes` as a PRISM dtmc: Milton Bradley's
// Chutes and Ladders layout, cells 0..100, start 0, a fair six-sided die, and a roll past 100
// finishing the game (the `clamp` rule).
//
//   kolmo check examples/models/snakes.pm --prop 'R=? [F pos=100]'          // 35.8349384136955
//   kolmo check examples/models/snakes.pm --prop 'P=? [F<=20 pos=100]'      // 0.2748926611928901

dtmc

const int GOAL = 100;

// Where the token ends after landing on cell x: the foot of a ladder climbs it, the head of a
// snake slides down it, any other cell stays.
formula l1 = min(pos+1, GOAL);
formula to1 = l1=1 ? 38 : (l1=4 ? 14 : (l1=9 ? 31 : (l1=16 ? 6 : (l1=21 ? 42 : (l1=28 ? 84 : (l1=36 ? 44 : (l1=47 ? 26 : (l1=49 ? 11 : (l1=51 ? 67 : (l1=56 ? 53 : (l1=62 ? 19 : (l1=64 ? 60 : (l1=71 ? 91 : (l1=80 ? 100 : (l1=87 ? 24 : (l1=93 ? 73 : (l1=95 ? 75 : (l1=98 ? 78 : l1))))))))))))))))));
formula l2 = min(pos+2, GOAL);
formula to2 = l2=1 ? 38 : (l2=4 ? 14 : (l2=9 ? 31 : (l2=16 ? 6 : (l2=21 ? 42 : (l2=28 ? 84 : (l2=36 ? 44 : (l2=47 ? 26 : (l2=49 ? 11 : (l2=51 ? 67 : (l2=56 ? 53 : (l2=62 ? 19 : (l2=64 ? 60 : (l2=71 ? 91 : (l2=80 ? 100 : (l2=87 ? 24 : (l2=93 ? 73 : (l2=95 ? 75 : (l2=98 ? 78 : l2))))))))))))))))));
formula l3 = min(pos+3, GOAL);
formula to3 = l3=1 ? 38 : (l3=4 ? 14 : (l3=9 ? 31 : (l3=16 ? 6 : (l3=21 ? 42 : (l3=28 ? 84 : (l3=36 ? 44 : (l3=47 ? 26 : (l3=49 ? 11 : (l3=51 ? 67 : (l3=56 ? 53 : (l3=62 ? 19 : (l3=64 ? 60 : (l3=71 ? 91 : (l3=80 ? 100 : (l3=87 ? 24 : (l3=93 ? 73 : (l3=95 ? 75 : (l3=98 ? 78 : l3))))))))))))))))));
formula l4 = min(pos+4, GOAL);
formula to4 = l4=1 ? 38 : (l4=4 ? 14 : (l4=9 ? 31 : (l4=16 ? 6 : (l4=21 ? 42 : (l4=28 ? 84 : (l4=36 ? 44 : (l4=47 ? 26 : (l4=49 ? 11 : (l4=51 ? 67 : (l4=56 ? 53 : (l4=62 ? 19 : (l4=64 ? 60 : (l4=71 ? 91 : (l4=80 ? 100 : (l4=87 ? 24 : (l4=93 ? 73 : (l4=95 ? 75 : (l4=98 ? 78 : l4))))))))))))))))));
formula l5 = min(pos+5, GOAL);
formula to5 = l5=1 ? 38 : (l5=4 ? 14 : (l5=9 ? 31 : (l5=16 ? 6 : (l5=21 ? 42 : (l5=28 ? 84 : (l5=36 ? 44 : (l5=47 ? 26 : (l5=49 ? 11 : (l5=51 ? 67 : (l5=56 ? 53 : (l5=62 ? 19 : (l5=64 ? 60 : (l5=71 ? 91 : (l5=80 ? 100 : (l5=87 ? 24 : (l5=93 ? 73 : (l5=95 ? 75 : (l5=98 ? 78 : l5))))))))))))))))));
formula l6 = min(pos+6, GOAL);
formula to6 = l6=1 ? 38 : (l6=4 ? 14 : (l6=9 ? 31 : (l6=16 ? 6 : (l6=21 ? 42 : (l6=28 ? 84 : (l6=36 ? 44 : (l6=47 ? 26 : (l6=49 ? 11 : (l6=51 ? 67 : (l6=56 ? 53 : (l6=62 ? 19 : (l6=64 ? 60 : (l6=71 ? 91 : (l6=80 ? 100 : (l6=87 ? 24 : (l6=93 ? 73 : (l6=95 ? 75 : (l6=98 ? 78 : l6))))))))))))))))));

module board
  pos : [0..GOAL] init 0;
  [roll] pos<GOAL -> 1/6:(pos'=to1) + 1/6:(pos'=to2) + 1/6:(pos'=to3)
                   + 1/6:(pos'=to4) + 1/6:(pos'=to5) + 1/6:(pos'=to6);
  [done] pos=GOAL -> true;
endmodule

// One roll per step before the goal.
rewards "rolls"
  pos<GOAL : 1;
endrewards

label "finished" = pos=GOAL;
